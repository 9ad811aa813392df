/**
 * @internal One value per domain size, built once per distinct size and shared
 * (e.g. one oracle for every group, or attribute, of the same number of cells). O(sizes).
 */
export function sharedPerDomain<T>(domains: readonly number[], build: (domain: number) => T): T[] {
  const built = new Map<number, T>();
  return domains.map((domain) => {
    let value = built.get(domain);
    if (value === undefined) {
      value = build(domain);
      built.set(domain, value);
    }
    return value;
  });
}
