/**
 * The contract's data: one user in every cell (so every input value, D - 1
 * included, is perturbed by the statistical checks), the other `users - D` spread
 * with weights (x + 1)^-1.1, rounded down and topped up in cell 0 so the counts sum
 * to `users` (at least D). Counts, not fractions. O(D).
 */
export function contractHistogram(domain: number, users: number): Float64Array {
  if (!(users >= domain))
    throw new RangeError(`contractHistogram: users must be >= D = ${domain} (got ${users})`);
  const weights = new Float64Array(domain);
  let total = 0;
  for (let x = 0; x < domain; x++) {
    weights[x] = 1 / (x + 1) ** 1.1;
    total += weights[x]!;
  }
  const counts = new Float64Array(domain);
  let assigned = 0;
  for (let x = 0; x < domain; x++) {
    counts[x] = 1 + Math.floor(((users - domain) * weights[x]!) / total);
    assigned += counts[x]!;
  }
  counts[0]! += users - assigned;
  return counts;
}

/** The values of `counts[x]` users holding x, in value order (a Uint32Array of sum(counts) values). O(users + D). */
export function valuesFromHistogram(counts: ArrayLike<number>): Uint32Array {
  let users = 0;
  for (let x = 0; x < counts.length; x++) users += counts[x]!;
  const values = new Uint32Array(users);
  let next = 0;
  for (let x = 0; x < counts.length; x++) values.fill(x, next, (next += counts[x]!));
  return values;
}
