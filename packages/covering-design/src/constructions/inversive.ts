import { galoisField, primePower } from "./galois-field.js";

/**
 * The Miquelian inversive (Möbius) plane of order q, q a prime power: points
 * GF(q^2) ∪ {∞} (∞ numbered q^2), blocks ("circles") the images of the subline
 * GF(q) ∪ {∞} under the Möbius maps z -> (a z + b)/(c z + d), ad - bc ≠ 0. Every
 * three points lie on exactly one circle: S(3, q + 1, q^2 + 1) with q(q^2 + 1)
 * blocks, an optimal C(q^2 + 1, q + 1, 3) (q = 3: SQS(10); q = 4: S(3, 5, 17);
 * q = 5: S(3, 6, 26)). Maps are enumerated as z -> a z + b and
 * z -> (a z + b)/(z + d) (every class of PGL(2, q^2) once): O(q^7).
 * @internal
 */
export function inversivePlane(q: number): number[][] | undefined {
  if (!primePower(q)) return undefined;
  const order = q * q;
  const field = galoisField(order);
  const infinity = order;
  // The subfield GF(q) = {x : x^q = x}.
  const circle: number[] = [infinity];
  for (let x = 0; x < order; x++) if (field.pow(x, q) === x) circle.push(x);
  const seen = new Set<string>();
  const blocks: number[][] = [];
  const keep = (image: number[]) => {
    image.sort((x, y) => x - y);
    const key = image.join(",");
    if (!seen.has(key)) {
      seen.add(key);
      blocks.push(image);
    }
  };
  for (let a = 1; a < order; a++) {
    for (let b = 0; b < order; b++) {
      keep(circle.map((z) => (z === infinity ? infinity : field.add(field.mul(a, z), b))));
    }
  }
  for (let a = 0; a < order; a++) {
    for (let b = 0; b < order; b++) {
      for (let d = 0; d < order; d++) {
        if (field.add(field.mul(a, d), field.neg(b)) === 0) continue; // ad - b = 0: singular
        keep(
          circle.map((z) => {
            if (z === infinity) return a; // (a z + b)/(z + d) -> a as z -> ∞
            const denominator = field.add(z, d);
            if (denominator === 0) return infinity;
            return field.mul(field.add(field.mul(a, z), b), field.inv(denominator));
          }),
        );
      }
    }
  }
  return blocks;
}
