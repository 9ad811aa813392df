import { type SourceAlias, workspaceSourceAliases } from "../../../../workspace-source-aliases.js";
import { packagesDir } from "./paths.js";

export type { SourceAlias };

/**
 * Every workspace package's entry points as Vite aliases to their TypeScript
 * source, as the tests resolve them: the page is built from source and never
 * needs `pnpm build` first. O(packages).
 */
export function sourceAliases(): SourceAlias[] {
  return workspaceSourceAliases(packagesDir());
}
