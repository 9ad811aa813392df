// Boots a TypeScript worker when the CLI runs from sources under tsx: worker
// threads do not inherit tsx's loader, so register it here, then load the entry.
import { workerData } from "node:worker_threads";

const { register } = await import("tsx/esm/api");
register({ tsconfig: process.env.TSX_TSCONFIG_PATH });
await import(workerData.entry);
