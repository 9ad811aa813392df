import type { PipelineCommand, PipelineMessage } from "./api.js";
import { runPipeline } from "./pipeline.js";

/**
 * The page's Web Worker: runs one pipeline per "run" command and posts every
 * message back. The page cancels by terminating the worker.
 */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<PipelineCommand>) => void) | null;
  postMessage(message: PipelineMessage): void;
};

scope.onmessage = (event) => {
  if (event.data.type === "run") runPipeline(event.data.request, (message) => scope.postMessage(message));
};
