/**
 * The orthonormal Helmert basis of one attribute with `c` categories, row-major
 * c x c: row 0 is the constant `1/sqrt(c)`; row j >= 1 is the j-th contrast
 * `1/sqrt(j(j+1))` on categories 0..j-1, `-j/sqrt(j(j+1))` on category j, 0 after.
 * Rows are orthonormal, so the inverse is the transpose. O(c^2). @internal
 */
export function helmertBasis(c: number): Float64Array {
  const basis = new Float64Array(c * c);
  for (let x = 0; x < c; x++) basis[x] = 1 / Math.sqrt(c);
  for (let j = 1; j < c; j++) {
    const scale = 1 / Math.sqrt(j * (j + 1));
    for (let x = 0; x < j; x++) basis[j * c + x] = scale;
    basis[j * c + j] = -j * scale;
  }
  return basis;
}

const bases = new Map<number, Float64Array>();
function basisOf(c: number): Float64Array {
  let basis = bases.get(c);
  if (!basis) {
    basis = helmertBasis(c);
    bases.set(c, basis);
  }
  return basis;
}

/**
 * In place, the tensor-product Helmert transform of a table with `cardinalities`
 * (mixed-radix cells, first attribute most significant): along every axis, cell
 * values are replaced by their coefficients on that attribute's basis
 * (`inverse` = false) or coefficients by cell values (`inverse` = true, the
 * transpose). Coefficient index u has the same mixed-radix layout as the cells,
 * its digit j_i naming the basis row of attribute i: the coefficient is a pure
 * interaction of the attributes with j_i >= 1 (its support). Orthonormal, so
 * i.i.d. cell noise of variance s^2 stays i.i.d. with variance s^2.
 * Cost: O(D * sum_i c_i) for D = prod_i c_i cells. @internal
 */
export function interactionTransform(
  cells: Float64Array,
  cardinalities: readonly number[],
  inverse: boolean,
): void {
  const size = cells.length;
  let inner = size;
  let scratch = new Float64Array(0);
  for (let axis = 0; axis < cardinalities.length; axis++) {
    const c = cardinalities[axis]!;
    inner /= c;
    if (c === 1) continue;
    const basis = basisOf(c);
    if (scratch.length < c) scratch = new Float64Array(c);
    const block = inner * c;
    for (let start = 0; start < size; start += block) {
      for (let offset = 0; offset < inner; offset++) {
        const base = start + offset;
        for (let x = 0; x < c; x++) scratch[x] = cells[base + x * inner]!;
        for (let j = 0; j < c; j++) {
          let sum = 0;
          if (inverse) for (let x = 0; x < c; x++) sum += basis[x * c + j]! * scratch[x]!;
          else for (let x = 0; x < c; x++) sum += basis[j * c + x]! * scratch[x]!;
          cells[base + j * inner] = sum;
        }
      }
    }
  }
}
