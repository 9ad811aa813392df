import { reportStreamId } from "@calm-ldp/baselines";

/**
 * @internal A `deriveSeed` path index naming a method id (FNV-1a, 32 bits), so a
 * method's random streams do not depend on its position in a list. A method that
 * shares another's reports (`calm-plus` on `calm`'s, see `reportStreamId`) gets
 * that method's stream: the two are compared on the same reports.
 */
export function methodStream(method: string): number {
  const id = reportStreamId(method);
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** @internal A `deriveSeed` path index naming an eps value (micro-units), independent of the eps list. */
export function epsStream(eps: number): number {
  return Math.round(eps * 1e6);
}
