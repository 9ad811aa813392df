import { packageConfig } from "../../tsup.config.base";

/**
 * Two entries: the browser-safe main entry and the Node file loaders (`@calm-ldp/datasets/node`).
 * Code splitting puts the shared modules in one chunk, so both entries share one copy of every class
 * (an error thrown by a node loader is `instanceof` the class exported by the main entry).
 */
export default packageConfig({ entry: ["src/index.ts", "src/node.ts"], splitting: true });
