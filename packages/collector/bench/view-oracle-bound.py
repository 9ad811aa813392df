"""
Which 4-cell view oracle would meet the issue's 1.5 x floor for maximal-gain fakes
in uniformly drawn views (protected grinding), and at what variance cost against
GRR. Not a speed benchmark; python3 with numpy and scipy, from packages/collector:
`python3 bench/view-oracle-bound.py [--map consistency-map.json]` (without --map it
runs `npx tsx bench/consistency-map.ts`).

Setting (bench/attack_lp.py): the issue's probe, all 28 pair views with the same
oracle, fakes a share beta of every view (tokens draw their views uniformly), each
sending the output that raises the released target cell most. With a hashing
oracle (BLH, OLH) the hash function is the device's seed; protected mode would
bind it to the token as it binds the view (no wire format yet), so a fake picks
only the hashed value: its shift is averaged over seeds ("bound"); "chosen" lets
it pick the seed too (unprotected). Printed per eps and oracle:

- released / floor: calm-core's release with the oracle's standard estimate
  (support - q)/(p - q) and consistency (bench/consistency-map.ts), fakes
  maximizing w_v . estimate in every view: gain/floor = (sum_v max_o w_v . est(o) - f_T)
  / (e^eps/(e^eps - 1) - f_T) (beta cancels; non-negativity does not act here);
- raw view / floor: the target view's own estimate of the target cell;
- LP least / floor: the least of the same over every linear unbiased estimator of
  the target cell from all views (per-output scores g_v(o), unbiased for all 256
  records; orbit-reduced under the attribute permutations that fix the target);
- variance: per report per cell of the standard estimate at f = 0, q(1 - q)/(p - q)^2,
  and of the released target cell through consistency (iid law, P(1) = 0.3),
  each against GRR's;
- least variance under a cap: over unbiased estimators of the target cell from all
  views (per-output scores, not CALM's consistent release: one estimator per
  queried cell), the least per-report variance whose fakes get at most 1.5 x (2 x)
  floor, against GRR's released target cell (a quadratic program, SLSQP over the
  null space of the unbiasedness constraints; when it stops before convergence the
  printed value is a feasible estimator's variance, an upper bound on the least).
"""
import sys

import numpy as np
import attack_lp as L


def released_shift(oracle, w, bound=True):
    """sum_v of the fake's best mean score w_v . est(o), the seed averaged over when bound."""
    est = oracle.standard()
    total = 0.0
    for wv in w:
        score = est @ wv
        if not bound or oracle.outputs[0][1] is None:
            total += score.max()
            continue
        best = {}
        for o, s in zip(oracle.outputs, score):
            best[o[1]] = max(best.get(o[1], -np.inf), s)
        total += np.mean(list(best.values()))
    return total


def raw_shift(oracle):
    """The target view's own estimate of cell 3 (x0 = x1 = 1): the fake's best mean, seed averaged over."""
    return released_shift(oracle, [np.array([0, 0, 0, 1.0])])


def cap_cost(reduced, eps, cap, grr_released):
    """'var V (R x GRR)' of the least-variance unbiased estimator whose fakes get <= cap x floor, or 'infeasible'."""
    out = reduced.least_variance(cap * (L.floor_factor(eps) - L.F_T) + L.F_T)
    if out is None:
        return "infeasible"
    variance, converged = out
    return f"{variance:.1f} ({variance / grr_released:.2f} x GRR{'' if converged else ', not converged: an upper bound'})"


def main():
    path = sys.argv[sys.argv.index("--map") + 1] if "--map" in sys.argv else None
    maps = L.consistency_map(path)
    for eps in [1.0, 0.5]:
        w = maps[eps][2]
        rows = []
        for oracle in L.oracles(eps):
            cell_var = oracle.q * (1 - oracle.q) / (oracle.p - oracle.q) ** 2
            rows.append((oracle, cell_var, L.released_variance(oracle, w)))
        grr_cell, grr_released = rows[0][1], rows[0][2]
        for oracle, cell_var, rel_var in rows:
            hashing = oracle.outputs[0][1] is not None
            chosen = f", seed chosen {L.ratio(released_shift(oracle, w, bound=False), eps):.3f} x" if hashing else ""
            reduced = L.Reduced(oracle)
            least, _ = reduced.least()
            print(
                f"eps {eps} {oracle.name}: released / floor {L.ratio(released_shift(oracle, w), eps):.3f} x"
                f"{' (seed bound)' if hashing else ''}{chosen}; raw view {L.ratio(raw_shift(oracle), eps):.3f} x; "
                f"LP least {L.ratio(least, eps):.3f} x; variance per cell {cell_var:.3f} ({cell_var / grr_cell:.2f} x GRR), "
                f"released target cell {rel_var:.2f} ({rel_var / grr_released:.2f} x GRR); least variance of an unbiased "
                f"target-cell estimator with gain <= 1.5 x floor: {cap_cost(reduced, eps, 1.5, grr_released)}, "
                f"<= 2 x: {cap_cost(reduced, eps, 2.0, grr_released)}"
            )


if __name__ == "__main__":
    main()
