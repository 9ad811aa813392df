/**
 * A value derived from an immutable object (a plan, a schema) built once per
 * object: `perObject(build)` returns `key => value`, calling `build(key)` the
 * first time a key object is seen and returning that value afterwards. Entries
 * go with their key (WeakMap). For the run-time state of a protocol plan (its
 * oracles, index tables), reused by every report, aggregator and estimate of the
 * plan. O(1) per call after the first.
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
