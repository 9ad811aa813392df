import { packageTestConfig } from "../../vitest.shared.ts";

// The end-to-end files start servers, spawn collector processes and load a
// database: run them one after another rather than competing for two cores, and
// give each test room when CI runs other packages' suites at the same time.
export default packageTestConfig({
  test: { fileParallelism: false, testTimeout: 180_000, hookTimeout: 600_000 },
});
