/**
 * @internal A per-plan cache: `build(plan)` runs once per plan object (plans are
 * immutable JSON, so the oracles and tables derived from one can be reused by every
 * report, aggregator and estimate of that plan). Entries go with their plan (WeakMap).
 * O(1) per lookup after the first.
 */
export function perPlan<Plan extends object, Runtime>(
  build: (plan: Plan) => Runtime,
): (plan: Plan) => Runtime {
  const cache = new WeakMap<Plan, Runtime>();
  return (plan) => {
    let runtime = cache.get(plan);
    if (runtime === undefined) {
      runtime = build(plan);
      cache.set(plan, runtime);
    }
    return runtime;
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
