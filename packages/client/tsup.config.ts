import { packageConfig } from "../../tsup.config.base";

/**
 * Two entries: the browser entry and the Node storage (`@calm-ldp/client/node`),
 * sharing one chunk so both see the same classes.
 */
export default packageConfig({ entry: ["src/index.ts", "src/node.ts"], splitting: true });
