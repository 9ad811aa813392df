export {
  ATTACKS,
  type AttackName,
  type AttackTarget,
  craftReport,
  parseTarget,
  targetView,
} from "./craft.js";
export { type AttackResult, type RunAttackOptions, releasedCell, runAttack } from "./run-attack.js";
export { protectedKey, tokenUsers } from "./token-users.js";
