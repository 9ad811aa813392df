import type { ProtocolPlan } from "@calm-ldp/marginal-algebra";
import type { ParameterCandidate } from "./choose-parameters.js";
import type { ViewSelection } from "./view-selection.js";

/** Frequency oracles a CALM view may use (names of the @calm-ldp/frequency-oracles registry). */
export type ViewOracleName = "grr" | "oue" | "olh" | "sue";

/** One view of a plan: the attributes it covers and the oracle its group reports through. */
export interface PlanView {
  /** Attribute indices, ascending. */
  attributes: number[];
  /** Number of cells (product of the attributes' cardinalities): the oracle's domain. */
  cells: number;
  /** The oracle (adaptive choice: GRR when cells - 2 < 3 e^eps, otherwise OUE). */
  oracle: ViewOracleName;
}

/** Format version of {@link CalmPlan}; bumped when the plan's meaning changes. */
export const CALM_PLAN_VERSION = 1;

/**
 * A CALM plan: everything a client needs and everything the server must agree
 * on. Plain JSON; the same inputs always produce the same plan.
 */
export interface CalmPlan extends ProtocolPlan {
  readonly method: "calm";
  readonly theta: number;
  /** View size. */
  readonly l: number;
  /** Number of views (user groups). */
  readonly m: number;
  /** The (l, m) pairs Algorithm 1 weighed. */
  readonly candidates: ParameterCandidate[];
  /** How views beyond a covering design were chosen. */
  readonly selection: ViewSelection;
  /** Whether the views cover every k-subset of attributes. */
  readonly covering: boolean;
  readonly views: PlanView[];
  /** "random": each client picks her group uniformly; "assigned": the server hands groups out. */
  readonly assignment: "random" | "assigned";
}

/** Options of {@link planCalm}, overriding Algorithm 1's choices. */
export interface CalmPlanOptions {
  /** Error threshold theta of Algorithm 1 (default 0.001). */
  theta?: number;
  /** Force the view size l (m then defaults to min(theta n, C(d, l)), or the covering-design size when l >= k). */
  l?: number;
  /** Force the number of views m. */
  m?: number;
  /** Force one oracle for every view instead of the adaptive choice. */
  oracle?: "adaptive" | ViewOracleName;
  /** View choice beyond a covering design (default "balanced"). */
  selection?: ViewSelection;
  /** Seed of the deterministic view choice (default 0). */
  seed?: number;
  /** Group assignment (default "random"). */
  assignment?: "random" | "assigned";
  /**
   * Choose l, m and the views for k' = planForK instead of the query size k
   * (CALM §5.6, Figures 8 and 9: parameters optimised for k' answering k-way queries).
   */
  planForK?: number;
}

/** A CALM client report: the user's group (view index) and her oracle report of the projected cell. */
export interface CalmReport<OracleReport = unknown> {
  view: number;
  report: OracleReport;
}
