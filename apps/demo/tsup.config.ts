import { packageConfig } from "../../tsup.config.base";

// vite (a devDependency, loaded by `serve` only when it must build the page) stays external.
export default packageConfig({ entry: ["src/cli.ts"], format: ["esm"], dts: false, external: ["vite"] });
