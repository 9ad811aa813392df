import { packageConfig } from "../../tsup.config.base";

// shims: the CJS build gets `import.meta.url` (used by createRequire to load libsvm-js).
export default packageConfig({ shims: true, entry: ["src/index.ts", "src/node.ts"] });
