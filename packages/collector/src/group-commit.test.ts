import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit.js";

describe("GroupCommit", () => {
  it("commits jobs that arrive during a commit together, in order, one result each", async () => {
    const groups: number[][] = [];
    const queue = new GroupCommit<number, string>(
      async (jobs) => {
        groups.push([...jobs]);
        await new Promise((resolve) => setTimeout(resolve, 10));
        return jobs.map((job) => `done ${job}`);
      },
      () => 1,
      100,
    );
    const first = queue.submit(0);
    const results = await Promise.all([first, ...[1, 2, 3, 4].map((job) => queue.submit(job))]);
    expect(results).toEqual(["done 0", "done 1", "done 2", "done 3", "done 4"]);
    // Submitted in one tick: one group.
    expect(groups).toEqual([[0, 1, 2, 3, 4]]);
    const late = queue.submit(5);
    await new Promise((resolve) => setTimeout(resolve, 1));
    const more = [queue.submit(6), queue.submit(7)];
    await Promise.all([late, ...more]);
    expect(groups.slice(1)).toEqual([[5], [6, 7]]);
  });

  it("caps a group's weight (a heavier job runs alone) and fails every job of a failed group only", async () => {
    const groups: number[][] = [];
    const queue = new GroupCommit<number, number>(
      async (jobs) => {
        groups.push([...jobs]);
        if (jobs.includes(13)) throw new Error("disk full");
        return jobs;
      },
      (job) => job,
      10,
    );
    const settled = await Promise.allSettled([4, 5, 3, 20, 13, 1, 2].map((job) => queue.submit(job)));
    expect(groups).toEqual([[4, 5], [3], [20], [13], [1, 2]]);
    expect(settled.map((s) => s.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    await queue.idle();
    expect(await queue.submit(2)).toBe(2);
  });
});
