import { packageTestConfig } from "../../vitest.shared.ts";

// The end-to-end files start servers, spawn collector processes and load a
// database: run them one after another rather than competing for two cores.
export default packageTestConfig({ test: { fileParallelism: false, hookTimeout: 300_000 } });
