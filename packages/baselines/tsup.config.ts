import { packageConfig } from "../../tsup.config.base";

// Two entries: the library, and `./testing` (the methods' contract suite, which needs vitest).
// The testing entry imports the library by its own name, kept external so both share
// one copy at run time; for declarations that name resolves to the source.
export default packageConfig({
  entry: ["src/index.ts", "src/testing/index.ts"],
  external: ["@calm-ldp/baselines"],
  dts: {
    compilerOptions: { paths: { "@calm-ldp/baselines": ["./src/index.ts"] }, composite: false },
  },
});
