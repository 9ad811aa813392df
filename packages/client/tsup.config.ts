import { packageConfig } from "../../tsup.config.base";

/**
 * Three entries: the browser entry, the Node storage (`@calm-ldp/client/node`) and
 * the wire-kind test plans (`@calm-ldp/client/testing`), sharing chunks so all see
 * the same classes.
 */
export default packageConfig({ entry: ["src/index.ts", "src/node.ts", "src/testing.ts"], splitting: true });
