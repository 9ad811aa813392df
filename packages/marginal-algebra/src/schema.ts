import type { Attribute, AttributeSpec, Schema } from "./api.js";
import { fail } from "./errors.js";

/** Largest cardinality an attribute may have (values are stored in Uint32 columns). */
export const MAX_CARDINALITY = 2 ** 32;

/**
 * A validated schema from attribute descriptions. Each attribute is given with its
 * labels, or with a cardinality (labels then "0".."c-1"). Names must be non-empty
 * and distinct; labels of one attribute distinct; cardinality an integer in
 * [2, 2^32]. The result is frozen. O(sum of cardinalities).
 */
export function createSchema(attributes: readonly AttributeSpec[]): Schema {
  const built: Attribute[] = attributes.map((spec) => {
    if ("labels" in spec) return Object.freeze({ name: spec.name, labels: Object.freeze([...spec.labels]) });
    const c = spec.cardinality;
    if (!Number.isInteger(c) || c < 2 || c > MAX_CARDINALITY) {
      fail("createSchema", `cardinality of ${JSON.stringify(spec.name)} must be an integer in [2, 2^32]`, c);
    }
    return Object.freeze({
      name: spec.name,
      labels: Object.freeze(Array.from({ length: c }, (_, v) => String(v))),
    });
  });
  return validateSchema(Object.freeze({ attributes: Object.freeze(built) }), "createSchema");
}

/**
 * A schema of `d` attributes named `a0 .. a{d-1}`, each with `cardinality`
 * categories labelled "0".."c-1" (binary data: cardinality 2). O(d c).
 */
export function uniformSchema(d: number, cardinality = 2): Schema {
  if (!Number.isInteger(d) || d < 1) fail("uniformSchema", "d must be an integer >= 1", d);
  return createSchema(Array.from({ length: d }, (_, i) => ({ name: `a${i}`, cardinality })));
}

/**
 * Check a schema (for instance one parsed from JSON in a plan) and return it:
 * at least one attribute, non-empty distinct names, >= 2 distinct labels per
 * attribute, cardinality <= 2^32. O(sum of cardinalities).
 */
export function validateSchema(schema: Schema, where = "validateSchema"): Schema {
  if (schema === null || typeof schema !== "object" || !Array.isArray(schema.attributes)) {
    fail(where, "schema must be an object with an attributes array", schema);
  }
  if (schema.attributes.length === 0) fail(where, "schema must have at least one attribute", 0);
  const names = new Set<string>();
  for (const attribute of schema.attributes) {
    const name = attribute?.name;
    if (typeof name !== "string" || name === "")
      fail(where, "attribute names must be non-empty strings", name);
    if (names.has(name)) fail(where, "attribute names must be distinct", name);
    names.add(name);
    const labels = attribute.labels;
    if (!Array.isArray(labels) || labels.length < 2 || labels.length > MAX_CARDINALITY) {
      fail(where, `attribute ${JSON.stringify(name)} must have between 2 and 2^32 labels`, labels?.length);
    }
    if (new Set(labels).size !== labels.length)
      fail(where, `labels of ${JSON.stringify(name)} must be distinct`, labels);
  }
  return schema;
}

/** Cardinality `c_i` of every attribute, in schema order. O(d). */
export function schemaCardinalities(schema: Schema): number[] {
  return schema.attributes.map((a) => a.labels.length);
}

/**
 * Cardinalities of the given attributes (indices into the schema), in the order
 * given. Throws on an index outside the schema. O(k).
 */
export function attributeCardinalities(schema: Schema, attributes: readonly number[]): number[] {
  const d = schema.attributes.length;
  return attributes.map((a) => {
    if (!Number.isInteger(a) || a < 0 || a >= d)
      fail("attributeCardinalities", `attribute index must be in [0, ${d})`, a);
    return schema.attributes[a]!.labels.length;
  });
}

/** Index of the attribute called `name`; throws if there is none. O(d). */
export function attributeIndex(schema: Schema, name: string): number {
  const index = schema.attributes.findIndex((a) => a.name === name);
  if (index < 0) fail("attributeIndex", "no attribute has this name", name);
  return index;
}
