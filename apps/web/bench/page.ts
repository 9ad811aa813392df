/**
 * How fast the web demo's pipeline runs in Chromium (in the page's Web Worker)
 * against the same pipeline in Node, on the same seeded configurations.
 * Run: `cd apps/web && npx tsx bench/page.ts` (needs /usr/bin/chromium; builds the page if stale).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PipelineMessage, PipelineRequest } from "../src/page/api.js";
import { runPipeline } from "../src/page/pipeline.js";
import { servePage } from "../src/server/serve-page.js";
import { launchChromium } from "../test/browser-support.js";

const CONFIGS: { name: string; n: number; d: number; k: number; path: "counts" | "per-user" }[] = [
  { name: "page defaults", n: 20000, d: 6, k: 2, path: "counts" },
  { name: "count-level, n = 2^20", n: 2 ** 20, d: 8, k: 3, path: "counts" },
  { name: "every user perturbed, n = 2^20", n: 2 ** 20, d: 8, k: 3, path: "per-user" },
];
const EPS = "0.5, 1, 2, 4";
const REPS = 3;

function nodeSeconds(config: (typeof CONFIGS)[number]): number {
  const request: PipelineRequest = {
    config: {
      data: "synthetic:bn?strength=0.6&parents=2&cardinality=2&base=random&seed=7",
      n: config.n,
      d: config.d,
      k: config.k,
      eps: [0.5, 1, 2, 4],
      methods: ["calm"],
      queries: 20,
      reps: REPS,
      seed: 1,
      path: config.path,
    },
    random: "seeded",
    inspect: Array.from({ length: config.k }, (_, i) => i),
  };
  let seconds = Number.NaN;
  let runs = 0;
  runPipeline(request, (message: PipelineMessage) => {
    if (message.type === "run") runs++;
    if (message.type === "done") seconds = message.seconds;
    if (message.type === "error") throw new Error(message.message);
  });
  if (runs !== 4 * REPS) throw new Error(`bench: expected ${4 * REPS} runs, got ${runs}`);
  return seconds;
}

const served = await servePage({ port: 0, log: (line) => process.stderr.write(`${line}\n`) });
const profile = mkdtempSync(join(tmpdir(), "calm-bench-chromium-"));
const context = await launchChromium(profile);
try {
  const page = await context.newPage();
  await page.goto(served.server.url);
  console.log(
    `methods: calm; eps ${EPS}; ${REPS} repetitions; 20 random queries; seeded; best of 3 runs each`,
  );
  console.log("configuration".padEnd(34) + "browser (s)".padStart(12) + "Node (s)".padStart(10));
  for (const config of CONFIGS) {
    await page.fill("#n", String(config.n));
    await page.fill("#d", String(config.d));
    await page.fill("#k", String(config.k));
    await page.fill("#eps", EPS);
    await page.fill("#reps", String(REPS));
    await page.fill("#queries", "20");
    await page.check(`input[name=path][value=${config.path}]`);
    for (const id of await page
      .locator('input[name="method"]')
      .evaluateAll((a) => a.map((i) => (i as HTMLInputElement).value)))
      await page.setChecked(`input[name=method][value=${id}]`, id === "calm");
    let browser = Number.POSITIVE_INFINITY;
    let node = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 3; attempt++) {
      await page.click("#run");
      await page.waitForSelector("body[data-state=done]", { timeout: 600_000 });
      const status = (await page.locator("#status").textContent()) ?? "";
      browser = Math.min(browser, Number(/in ([\d.]+) s/.exec(status)?.[1]));
      node = Math.min(node, nodeSeconds(config));
    }
    console.log(config.name.padEnd(34) + browser.toFixed(2).padStart(12) + node.toFixed(2).padStart(10));
  }
} finally {
  await context.close();
  await served.server.close();
  rmSync(profile, { recursive: true, force: true });
}
