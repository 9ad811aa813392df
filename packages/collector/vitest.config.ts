import { configDefaults } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.ts";

// The end-to-end files start servers, spawn collector processes and load a database:
// two run at a time (much of their time is spent waiting on processes, sockets and the
// databases), each given room for CI's other suites running meanwhile. The two-shard
// ClickHouse test stops a shard of the shared cluster, so it runs alone, first (a
// project group of its own), before any other file of this package uses ClickHouse.
// (A project's include is appended to the root's, hence the root's is empty.)
const cluster = "test/clickhouse-cluster.test.ts";
export default packageTestConfig({
  test: {
    include: [],
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 600_000,
    projects: [
      {
        extends: true,
        test: { name: "clickhouse-cluster", include: [cluster], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: "collector",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, cluster],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
