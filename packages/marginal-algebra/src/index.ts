export type * from "./api.js";
export {
  binaryEncoding,
  decodeRecord,
  decodeTable,
  encodedAttributes,
  encodeRecord,
  encodeStore,
} from "./binary-encoding.js";
export { cellCount, cellIndex, cellValues, MAX_CELLS, recordCellIndex } from "./cell-index.js";
export { makeConsistent, maxInconsistency } from "./consistency.js";
export { sumDeviationTransform } from "./consistency-components.js";
export { contingencyTable } from "./contingency.js";
export { InvalidInputError } from "./errors.js";
export { l1, maxAbsError, meanAnswerErrors, sse, tvd } from "./metrics.js";
export { DEFAULT_NON_NEGATIVITY, makeNonNegative } from "./non-negativity.js";
export { normCut } from "./norm-cut.js";
export { normSub, normSubCells } from "./norm-sub.js";
export { perObject } from "./per-object.js";
export { postProcessViews } from "./post-process.js";
export { projectionMap } from "./projection-map.js";
export { allQueries, randomQueries } from "./queries.js";
export { createRecordStore, recordAt, selectRecords } from "./record-store.js";
export { ripple } from "./ripple.js";
export {
  attributeCardinalities,
  attributeIndex,
  createSchema,
  MAX_CARDINALITY,
  schemaCardinalities,
  uniformSchema,
  validateSchema,
} from "./schema.js";
export {
  copyTable,
  createTable,
  expandTable,
  normalizeTable,
  projectTable,
  type TableOptions,
  tableTotal,
  toCounts,
  toFractions,
  uniformTable,
  validateTable,
} from "./table.js";
