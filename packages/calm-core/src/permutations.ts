/**
 * The distinct orderings of `values`, in lexicographic order of positions;
 * equal values must be adjacent (e.g. sorted), and each ordering of a multiset
 * comes once. n! / prod(multiplicities!) arrays of n values: keep n small.
 */
export function distinctPermutations<T>(values: readonly T[]): T[][] {
  const out: T[][] = [];
  const used = new Array<boolean>(values.length).fill(false);
  const current: T[] = [];
  const walk = () => {
    if (current.length === values.length) {
      out.push([...current]);
      return;
    }
    for (let i = 0; i < values.length; i++) {
      if (used[i] || (i > 0 && values[i] === values[i - 1] && !used[i - 1])) continue;
      used[i] = true;
      current.push(values[i]!);
      walk();
      current.pop();
      used[i] = false;
    }
  };
  walk();
  return out;
}
