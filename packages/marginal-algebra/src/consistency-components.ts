import type { MarginalTable } from "./api.js";
import { checkViews } from "./view-check.js";

/**
 * @internal Per view shape: the strides, and for every coefficient index its
 * support (bit p set when j_p >= 1; bit 0 = first attribute) and its index inside
 * the block of coefficients with that support (j_i - 1 for i in the support,
 * mixed radix, first attribute most significant).
 */
interface Shape {
  readonly strides: readonly number[];
  readonly support: Uint32Array;
  readonly local: Uint32Array;
  /** Block size of every support mask: prod over the support of (c_i - 1). */
  readonly blockSize: Uint32Array;
}

/** @internal A reusable plan for {@link applyComponentConsistency}. */
export interface ComponentPlan {
  readonly views: readonly {
    readonly cardinalities: readonly number[];
    readonly strides: readonly number[];
    /** w_V = 1 / |V|. */
    readonly weight: number;
    /** Global slot of every coefficient, -1 when only this view has its block. */
    readonly slots: Int32Array;
  }[];
  /** Per slot: sum over the views having it of w_V. */
  readonly weights: Float64Array;
  /** Per slot: scratch for the weighted sums. */
  readonly sums: Float64Array;
  /** Scratch coefficients, one array per view. */
  readonly coefficients: readonly Float64Array[];
}

const shapes = new Map<string, Shape>();

function shapeOf(cardinalities: readonly number[]): Shape {
  const key = cardinalities.join(",");
  const known = shapes.get(key);
  if (known) return known;
  const k = cardinalities.length;
  const strides = new Array<number>(k);
  let size = 1;
  for (let i = k - 1; i >= 0; i--) {
    strides[i] = size;
    size *= cardinalities[i]!;
  }
  const support = new Uint32Array(size);
  const local = new Uint32Array(size);
  for (let u = 0; u < size; u++) {
    let mask = 0;
    let index = 0;
    let radix = 1;
    let rest = u;
    for (let i = k - 1; i >= 0; i--) {
      const c = cardinalities[i]!;
      const j = rest % c;
      rest = (rest - j) / c;
      if (j !== 0) {
        mask |= 1 << i;
        index += (j - 1) * radix;
        radix *= c - 1;
      }
    }
    support[u] = mask;
    local[u] = index;
  }
  const blockSize = new Uint32Array(2 ** k);
  for (let mask = 0; mask < blockSize.length; mask++) {
    let b = 1;
    for (let i = 0; i < k; i++) if ((mask >>> i) & 1) b *= cardinalities[i]! - 1;
    blockSize[mask] = b;
  }
  const shape = { strides, support, local, blockSize };
  if (shapes.size > 4096) shapes.clear();
  shapes.set(key, shape);
  return shape;
}

/** @internal Open-addressing hash map from a uint32 attribute mask (attributes < 32) to an id >= 0. */
class MaskIndex {
  private keys = new Uint32Array(1 << 12);
  private values = new Int32Array(1 << 12).fill(-1);
  private count = 0;
  /** 32 - log2(capacity): Fibonacci hashing keeps the high bits of the product. */
  private shift = 20;

  /** The id of `mask`, or -1. */
  get(mask: number): number {
    const capacityMask = this.keys.length - 1;
    let at = Math.imul(mask, 0x9e3779b1) >>> this.shift;
    while (this.values[at] !== -1) {
      if (this.keys[at] === mask) return this.values[at]!;
      at = (at + 1) & capacityMask;
    }
    return -1;
  }

  /** Record a new mask (not present). */
  add(mask: number, id: number): void {
    if (2 * (this.count + 1) > this.keys.length) this.grow();
    const capacityMask = this.keys.length - 1;
    let at = Math.imul(mask, 0x9e3779b1) >>> this.shift;
    while (this.values[at] !== -1) at = (at + 1) & capacityMask;
    this.keys[at] = mask;
    this.values[at] = id;
    this.count++;
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Uint32Array(keys.length * 2);
    this.values = new Int32Array(keys.length * 2).fill(-1);
    this.count = 0;
    this.shift--;
    for (let i = 0; i < keys.length; i++) if (values[i] !== -1) this.add(keys[i]!, values[i]!);
  }
}

/**
 * In place along every axis: (x_0..x_{c-1}) -> (S, x_1 - S/c, .., x_{c-1} - S/c)
 * with S = sum_v x_v. Coefficient j (j_i = 0: summed over attribute i; j_i >= 1:
 * deviation of value j_i from the mean) depends only on the view's marginal over
 * the attributes with j_i >= 1. O(|V| k).
 */
function forward(cells: Float64Array, cardinalities: readonly number[], strides: readonly number[]): void {
  const size = cells.length;
  for (let i = 0; i < cardinalities.length; i++) {
    const c = cardinalities[i]!;
    const s = strides[i]!;
    const block = s * c;
    if (c === 2) {
      for (let base = 0; base < size; base += block) {
        for (let offset = base; offset < base + s; offset++) {
          const a = cells[offset];
          const b = cells[offset + s];
          cells[offset] = a + b;
          cells[offset + s] = 0.5 * (b - a);
        }
      }
      continue;
    }
    for (let base = 0; base < size; base += block) {
      for (let offset = base; offset < base + s; offset++) {
        let sum = 0;
        for (let v = 0; v < c; v++) sum += cells[offset + v * s];
        const mean = sum / c;
        cells[offset] = sum;
        for (let v = 1; v < c; v++) cells[offset + v * s] -= mean;
      }
    }
  }
}

/** Inverse of {@link forward}: x_v = y_v + S/c (v >= 1), x_0 = S/c - sum_{v>=1} y_v. O(|V| k). */
function inverse(cells: Float64Array, cardinalities: readonly number[], strides: readonly number[]): void {
  const size = cells.length;
  for (let i = cardinalities.length - 1; i >= 0; i--) {
    const c = cardinalities[i]!;
    const s = strides[i]!;
    const block = s * c;
    if (c === 2) {
      for (let base = 0; base < size; base += block) {
        for (let offset = base; offset < base + s; offset++) {
          const mean = 0.5 * cells[offset];
          const deviation = cells[offset + s];
          cells[offset] = mean - deviation;
          cells[offset + s] = mean + deviation;
        }
      }
      continue;
    }
    for (let base = 0; base < size; base += block) {
      for (let offset = base; offset < base + s; offset++) {
        const mean = cells[offset] / c;
        let deviations = 0;
        for (let v = 1; v < c; v++) {
          deviations += cells[offset + v * s];
          cells[offset + v * s] += mean;
        }
        cells[offset] = mean - deviations;
      }
    }
  }
}

/**
 * The coordinates of the component consistency step, in place: along every axis
 * (x_0..x_{c-1}) -> (S, x_1 - S/c, .., x_{c-1} - S/c), S the sum along the axis;
 * coefficient j depends only on the marginal over the attributes with j_i >= 1.
 * With `undo`, inverts it. `cells` in mixed radix, first attribute most
 * significant. O(|cells| k).
 */
export function sumDeviationTransform(
  cells: Float64Array,
  cardinalities: readonly number[],
  undo = false,
): void {
  const { strides } = shapeOf(cardinalities);
  (undo ? inverse : forward)(cells, cardinalities, strides);
}

/**
 * @internal Plan the fast form of the consistency step (../../../docs/algorithms.md#consistency): one block of slots
 * per attribute set beta that is a subset of two or more views, shared by all of
 * them. O(sum_V 2^|V| + sum_V |V|).
 */
export function componentPlan(views: readonly MarginalTable[], where: string): ComponentPlan {
  const { maxAttribute } = checkViews(views, where);
  const narrow = maxAttribute < 32;
  const narrowIndex = new MaskIndex();
  const wideIndex = new Map<string, number>();
  // Pass 1: number the distinct sets (ids), count their members.
  const members: number[] = [];
  const viewIds = views.map((view) => {
    const attributes = view.attributes;
    const k = attributes.length;
    const ids = new Int32Array(2 ** k);
    const masks = new Uint32Array(2 ** k);
    for (let mask = 0; mask < ids.length; mask++) {
      let id: number;
      if (narrow) {
        if (mask > 0)
          masks[mask] = (masks[mask & (mask - 1)]! | (1 << attributes[31 - Math.clz32(mask & -mask)]!)) >>> 0;
        id = narrowIndex.get(masks[mask]!);
        if (id === -1) {
          id = members.length;
          members.push(0);
          narrowIndex.add(masks[mask]!, id);
        }
      } else {
        const key = attributes.filter((_, p) => (mask >>> p) & 1).join(",");
        id = wideIndex.get(key) ?? -1;
        if (id === -1) {
          id = members.length;
          members.push(0);
          wideIndex.set(key, id);
        }
      }
      members[id]++;
      ids[mask] = id;
    }
    return ids;
  });
  // Pass 2: give every shared set a block of slots.
  const base = new Int32Array(members.length).fill(-1);
  let slots = 0;
  const planned = views.map((view, v) => {
    const shape = shapeOf(view.cardinalities);
    const ids = viewIds[v]!;
    for (let mask = 0; mask < ids.length; mask++) {
      const id = ids[mask]!;
      if (members[id]! >= 2 && base[id] === -1) {
        base[id] = slots;
        slots += shape.blockSize[mask]!;
      }
    }
    const slotOf = new Int32Array(view.cells.length);
    for (let u = 0; u < slotOf.length; u++) {
      const b = base[ids[shape.support[u]!]!]!;
      slotOf[u] = b === -1 ? -1 : b + shape.local[u]!;
    }
    return {
      cardinalities: view.cardinalities,
      strides: shape.strides,
      weight: 1 / view.cells.length,
      slots: slotOf,
    };
  });
  const weights = new Float64Array(slots);
  for (const view of planned) {
    for (let u = 0; u < view.slots.length; u++)
      if (view.slots[u]! >= 0) weights[view.slots[u]!] += view.weight;
  }
  return {
    views: planned,
    weights,
    sums: new Float64Array(slots),
    coefficients: views.map((view) => new Float64Array(view.cells.length)),
  };
}

/**
 * @internal The §3.2 consistency step computed in interaction coordinates, writing
 * the consistent cells into `out` (may be `cells` itself).
 *
 * Why this equals the step-by-step procedure: take the per-axis sum/deviation
 * transform above. A view's coefficients with support exactly beta are a fixed
 * linear function of the beta-interaction of its marginal over beta. The consistency step (../../../docs/algorithms.md#consistency)
 * for a set A adds to view i a function of u_A only, (T - T_i)/C_i; its
 * coefficients with support beta ⊆ A are `avg_w(h_beta) - h_beta^i` (h = the
 * coefficients, w_i ∝ 1/C_i ∝ 1/|V_i|), zero for the beta already equalised at an
 * earlier (smaller) closure set. Each beta shared by two or more views is equalised
 * exactly once, at A = the intersection of all views containing beta, whose members
 * are exactly the views containing beta. So the result of the whole ordered pass
 * is: every coefficient block beta replaced by its average over the views
 * containing beta with weights ∝ 1/|V|. Cost O(sum_V |V| k_V) per call.
 */
export function applyComponentConsistency(
  plan: ComponentPlan,
  cells: readonly Float64Array[],
  out: readonly Float64Array[],
): void {
  const sums = plan.sums;
  const weights = plan.weights;
  sums.fill(0);
  plan.views.forEach((view, v) => {
    const y = plan.coefficients[v]!;
    y.set(cells[v]!);
    forward(y, view.cardinalities, view.strides);
    const slots = view.slots;
    const w = view.weight;
    for (let u = 0; u < y.length; u++) {
      const slot = slots[u];
      if (slot >= 0) sums[slot] += w * y[u];
    }
  });
  plan.views.forEach((view, v) => {
    const y = plan.coefficients[v]!;
    const slots = view.slots;
    for (let u = 0; u < y.length; u++) {
      const slot = slots[u];
      if (slot >= 0) y[u] = sums[slot] / weights[slot];
    }
    inverse(y, view.cardinalities, view.strides);
    out[v]!.set(y);
  });
}
