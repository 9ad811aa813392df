import { packageConfig } from "../../tsup.config.base";

/**
 * Four entries: the browser entry, the Node storage (`@calm-ldp/client/node`), the Privacy Pass tokens (`@calm-ldp/client/tokens`) and
 * the wire-kind test plans (`@calm-ldp/client/testing`), sharing chunks so all see
 * the same classes.
 */
export default packageConfig({
  entry: {
    index: "src/index.ts",
    node: "src/node.ts",
    testing: "src/testing.ts",
    tokens: "src/tokens/index.ts",
  },
  splitting: true,
});
