/**
 * Group commit: jobs submitted while a commit is running wait and are committed
 * together by the next one, so a single writer amortises the cost of a durable
 * commit (an fsync of the write-ahead log, ~4-10 ms here) over every request
 * that arrived meanwhile. `run` receives the jobs of one group and returns one
 * result per job (or throws, failing every job of the group). At most
 * `maxWeight` total weight per group (a single heavier job runs alone). A class
 * because the queue is state.
 */
export class GroupCommit<Job, Result> {
  readonly #run: (jobs: Job[]) => Promise<Result[]>;
  readonly #weight: (job: Job) => number;
  readonly #maxWeight: number;
  #waiting: { job: Job; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  #running: Promise<void> | undefined;
  #listeners: ((group: { size: number; seconds: number; failed: boolean }) => void)[] = [];

  constructor(run: (jobs: Job[]) => Promise<Result[]>, weight: (job: Job) => number, maxWeight: number) {
    this.#run = run;
    this.#weight = weight;
    this.#maxWeight = maxWeight;
  }

  /** Queue `job`; resolves with its result once its group has committed. */
  submit(job: Job): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#waiting.push({ job, resolve, reject });
      this.#running ??= this.#drain();
    });
  }

  /**
   * Call `listener` after each group with its total weight (`size`), its run's
   * duration in seconds and whether it failed (metrics). O(1) per group.
   */
  observe(listener: (group: { size: number; seconds: number; failed: boolean }) => void): void {
    this.#listeners.push(listener);
  }

  /** Resolves when every job submitted so far has been committed or failed. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    // Let requests that arrive in the same tick join the first group.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      let weight = 0;
      let take = 0;
      while (take < this.#waiting.length) {
        const next = this.#weight(this.#waiting[take]!.job);
        if (take > 0 && weight + next > this.#maxWeight) break;
        weight += next;
        take++;
      }
      const group = this.#waiting.splice(0, take);
      const started = performance.now();
      let failed = false;
      try {
        const results = await this.#run(group.map((entry) => entry.job));
        group.forEach((entry, i) => {
          entry.resolve(results[i]!);
        });
      } catch (error) {
        failed = true;
        for (const entry of group) entry.reject(error);
      }
      const seconds = (performance.now() - started) / 1000;
      for (const listener of this.#listeners) listener({ size: weight, seconds, failed });
    }
    this.#running = undefined;
  }
}
