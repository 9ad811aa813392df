import type { MethodId } from "./api.js";

/**
 * Methods that run another method's protocol with the same plan and the same
 * reports and only estimate differently: method -> the method whose reports it
 * shares. Harnesses draw both from one random stream, so the two are compared on
 * the same reports (a paired comparison), as the benchmarks do.
 */
export const SAME_REPORTS_AS: Readonly<Partial<Record<MethodId, MethodId>>> = Object.freeze({
  "calm-plus": "calm",
});

/** The id whose random stream `id`'s reports come from: {@link SAME_REPORTS_AS}, else `id` itself. O(1). */
export function reportStreamId(id: string): string {
  return (SAME_REPORTS_AS as Record<string, string | undefined>)[id] ?? id;
}
