import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * For tests: a stand-in for a built page in a fresh temporary directory (an
 * index.html, one asset and a build-info.json offering "calm"), stamped a day
 * newer than every source so `servePage` does not rebuild it. Returns the directory.
 */
export function fakePage(): string {
  const dir = mkdtempSync(join(tmpdir(), "calm-serve-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>calm-ldp</title><p>page</p>\n");
  writeFileSync(join(dir, "assets", "main.js"), "console.log('main');\n");
  writeFileSync(
    join(dir, "build-info.json"),
    JSON.stringify({ builtAt: "now", milliseconds: 1, methods: ["calm"], vite: "7" }),
  );
  const future = new Date(Date.now() + 86_400_000);
  utimesSync(join(dir, "build-info.json"), future, future);
  return dir;
}
