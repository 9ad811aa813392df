/**
 * A progress bar on stderr that shows itself only once a run has taken longer
 * than `delayMs` (default 2 s): redrawn in place on a terminal, a line at most
 * every 10 s otherwise. Never writes to stdout.
 */
export function createProgress(total: number, label: string, delayMs = 2000) {
  const start = Date.now();
  let lastLine = 0;
  let shown = false;
  const tty = Boolean(process.stderr.isTTY);
  return {
    update(done: number, message = "") {
      const elapsed = Date.now() - start;
      if (elapsed < delayMs) return;
      const width = 28;
      const filled = Math.round((done / total) * width);
      const eta = done > 0 ? ((elapsed / done) * (total - done)) / 1000 : Number.NaN;
      const text = `${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${(elapsed / 1000).toFixed(1)}s${Number.isFinite(eta) ? `, ~${eta.toFixed(0)}s left` : ""} ${message}`;
      if (tty) {
        process.stderr.write(
          `\r${text.slice(0, (process.stderr.columns ?? 100) - 1).padEnd(Math.min(100, (process.stderr.columns ?? 100) - 1))}`,
        );
        shown = true;
      } else if (Date.now() - lastLine > 10_000 || done === total) {
        process.stderr.write(`${text}\n`);
        lastLine = Date.now();
      }
    },
    finish() {
      if (tty && shown) process.stderr.write("\n");
    },
  };
}
