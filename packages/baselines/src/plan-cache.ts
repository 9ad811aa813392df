/**
 * @internal A per-object cache: `build(key)` runs once per key object. Keys are
 * immutable plans (the oracles and tables derived from one are reused by every
 * report, aggregator and estimate of that plan) or schemas (their binary
 * encoding). Entries go with their key (WeakMap). O(1) per lookup after the first.
 */
export function perObject<Key extends object, Value>(build: (key: Key) => Value): (key: Key) => Value {
  const cache = new WeakMap<Key, Value>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = build(key);
      cache.set(key, value);
    }
    return value;
  };
}

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
