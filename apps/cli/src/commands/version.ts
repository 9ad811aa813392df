import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
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

/**
 * The version in `<name>/package.json`, found the way Node resolves the package
 * from here (every @calm-ldp package exports `./package.json`): right from the
 * sources, from the built CLI and from an installed one.
 */
function packageVersion(name: string): string {
  const path = createRequire(import.meta.url).resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}

export const versionCommand: Command = {
  name: "version",
  summary: "Print the versions of the CLI, every @calm-ldp package and the runtime.",
  options: {},
  run() {
    const packages: Record<string, string> = {};
    for (const name of PACKAGES) {
      packages[`@calm-ldp/${name}`] = packageVersion(`@calm-ldp/${name}`);
    }
    return {
      name: "calm-ldp",
      version: packageVersion("@calm-ldp/cli"),
      packages,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    };
  },
};
