import { packageConfig } from "../../tsup.config.base";

/**
 * Two entries: the browser-safe harness and `./analyses` (the analyses' figure runners,
 * Node only: the classification trains libsvm). Code splitting puts the shared modules
 * in one chunk, so both entries share one copy of each.
 */
export default packageConfig({ entry: ["src/index.ts", "src/analyses/index.ts"], splitting: true });
