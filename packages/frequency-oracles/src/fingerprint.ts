/**
 * The canonical parameter text of an oracle: `id/mechanism/D=<D>/eps=<eps>` then
 * `/<name>=<value>` for every extra parameter in name order. Numbers print with
 * JavaScript's shortest round-trip form, so equal parameters give equal text. O(#params).
 */
export function parameterText(
  id: string,
  mechanism: string,
  domain: number,
  eps: number,
  parameters: Readonly<Record<string, number>>,
): string {
  const extra = Object.keys(parameters)
    .sort()
    .map((name) => `/${name}=${String(parameters[name])}`)
    .join("");
  return `${id}/${mechanism}/D=${domain}/eps=${String(eps)}${extra}`;
}

/**
 * 32-bit FNV-1a hash of a string's UTF-16 code units (each unit as two bytes, low
 * first): offset basis 2166136261, prime 16777619. O(length). Used as the
 * parameter fingerprint carried by reports; it detects mismatched parameters, it
 * is not a security measure.
 */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    hash = Math.imul(hash ^ (unit & 0xff), 0x01000193);
    hash = Math.imul(hash ^ (unit >>> 8), 0x01000193);
  }
  return hash >>> 0;
}
