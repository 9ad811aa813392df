import { packageConfig } from "../../tsup.config.base";

// The web app (loaded by `serve` only, from source) and vite stay external.
export default packageConfig({
  entry: ["src/cli.ts"],
  format: ["esm"],
  dts: false,
  external: ["vite", "@calm-ldp/web"],
});
