import { readFileSync } from "node:fs";
import type { Command } from "../cli-kit.js";

const PACKAGES = [
  "random",
  "frequency-oracles",
  "covering-design",
  "marginal-algebra",
  "hadamard",
  "reconstruction",
  "calm-core",
  "baselines",
  "datasets",
];

function packageVersion(path: URL): string {
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}

export const versionCommand: Command = {
  name: "version",
  summary: "Print the versions of the CLI, every @calm-ldp package and the runtime.",
  options: {},
  run() {
    const packages: Record<string, string> = {};
    for (const name of PACKAGES) {
      packages[`@calm-ldp/${name}`] = packageVersion(
        new URL(`../../../../packages/${name}/package.json`, import.meta.url),
      );
    }
    return {
      name: "calm-ldp",
      version: packageVersion(new URL("../../package.json", import.meta.url)),
      packages,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    };
  },
};
