import { packageConfig } from "../../tsup.config.base";

export default packageConfig({ entry: ["src/cli.ts"], format: ["esm"], dts: false });
