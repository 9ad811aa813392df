/** Helpers shared by the tests (not exported from the package). */
import type { LoadedDataset } from "@calm-ldp/datasets";
import { createRecordStore, createSchema } from "@calm-ldp/marginal-algebra";

/** A loaded dataset over in-memory columns (cardinalities given per attribute). */
export function datasetOf(
  columns: readonly ArrayLike<number>[],
  cardinalities: readonly number[],
): LoadedDataset {
  const schema = createSchema(cardinalities.map((cardinality, i) => ({ name: `a${i}`, cardinality })));
  const store = createRecordStore(schema, { columns });
  return {
    schema,
    store,
    info: {
      source: "test",
      files: [],
      rowsRead: store.size,
      rowsDropped: 0,
      drops: [],
      rows: store.size,
      preprocessing: [],
      attributes: schema.attributes.map((a) => ({
        name: a.name,
        kind: "nominal" as const,
        sourceCategories: a.labels.length,
        cardinality: a.labels.length,
        rule: "none",
      })),
    },
  };
}
