import { packageConfig } from "../../tsup.config.base";

// Two entries at dist/ top level: the CLI (the package's bin) and the harness's
// worker thread (`harness/parallel.ts` starts `./worker.js` beside the bundle).
// The web app and tsx are loaded by `serve` only, from the repository (see
// commands/serve.ts); vite is the web app's. Splitting keeps each command's
// module (and the packages it imports) in its own chunk, loaded when it runs.
export default packageConfig({
  entry: { cli: "src/cli.ts", worker: "src/harness/worker.ts" },
  format: ["esm"],
  dts: false,
  splitting: true,
  external: ["@calm-ldp/web", "tsx", "vite"],
});
