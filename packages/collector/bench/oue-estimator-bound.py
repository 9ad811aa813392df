"""
How far a different estimator can bound maximal-gain fakes on OUE pair views
(issue 32's "on OUE views, maximal-gain after detection <= 2 x floor"), and at what
variance. Not a speed benchmark; python3 with numpy and scipy, from
packages/collector: `python3 bench/oue-estimator-bound.py [--map m.json] [--export t.json]`.

Setting (bench/attack_lp.py): the issue's probe with OUE views (28 pair views of 4
cells), fakes a share beta of every view (protected mode draws their views), gain
of the released target cell (x0, x1) = (1, 1) over the floor. "adaptive" is the
maximal-gain fake against the estimator at hand (the pattern raising the released
cell most in each view), `mga` / `mga-honest-count` the suite's crafted reports
(`craftReport`: the matching bits padded to round(mu) / to a count of mean mu).
Printed per eps:

1. calm-core's release (standard OUE estimate (y_c - q)/(p - q), consistency):
   adaptive, mga, mga-honest-count (expectations, no sampling).
2. Per-cell counts only (what the collector stores): the least adaptive gain of
   ANY unbiased estimator of the target cell linear in the views' per-cell counts
   (LP over scores a_v + b_v . y): the raw view's (2 e^eps/(e^eps - 1) - f_T)/(e^eps/(e^eps - 1) - f_T) > 2.
3. Per-view estimators reading whole bit patterns (one table g(y) in R^4 for every
   view, unbiased for every cell, invariant under the view's symmetries, i.e. not
   tuned to a target), fed to calm-core's consistency: the least adaptive gain
   (LP) and, under caps, the least variance (QP) with its mga / mga-honest-count.
4. One estimator per released cell reading whole bit patterns (not a consistent
   table): the least variance with adaptive gain <= 2 x floor, against calm-core's
   released target cell (QP of bench/attack_lp.py). `--export` writes that
   estimator's scores g_v(y) per view and pattern (28 x 16) for eps 1 and 0.5 as
   JSON, for `bench/pattern-estimator.ts` to check on sampled reports.
5. The same for every cell of a pair marginal (each cell its own capped
   estimator, the cap at 2 x that cell's floor): per cell the adaptive gain through
   calm-core's release and both variances, and the release's SSE ratio (every one
   of the 28 pair marginals is the probe's (0, 1) up to renaming attributes, so the
   SSE over them is 28 x the sum over the 4 cells).
"""
import itertools
import json
import sys

import numpy as np
from scipy.linalg import null_space
from scipy.optimize import linprog, minimize

import attack_lp as L

PATTERNS = list(itertools.product([0, 1], repeat=4))
GROUP = [  # the 8 symmetries of a binary pair view: swap the attributes, flip either value
    [2 * ((c >> 1 if not s else c & 1) ^ fa) + ((c & 1 if not s else c >> 1) ^ fb) for c in range(4)]
    for s in (0, 1)
    for fa in (0, 1)
    for fb in (0, 1)
]


def view_kind(v):
    i, j = L.PAIRS[v]
    return "target" if (i, j) == (0, 1) else ("touching" if {i, j} & {0, 1} else "other")


def crafted_law(eps, honest_count):
    """Per view kind, the law of a crafted fake's bit pattern (as craftReport builds it)."""
    oue = L.oue(eps)
    mu = oue.p + 3 * oue.q
    counts = [(int(np.floor(mu)), 1 - mu % 1), (int(np.floor(mu)) + 1, mu % 1)] if honest_count else [(int(round(mu)), 1.0)]

    def law(match):
        out = np.zeros(16)
        for b, weight in counts:
            chosen = match if len(match) < 4 else []
            subsets = list(itertools.combinations(chosen, b)) if honest_count and len(chosen) > b else [tuple(chosen)]
            for sub in subsets:
                rest = [c for c in range(4) if c not in sub]
                pads = list(itertools.combinations(rest, max(0, b - len(sub))))
                for pad in pads:
                    bits = tuple(int(c in sub or c in pad) for c in range(4))
                    out[PATTERNS.index(bits)] += weight / (len(subsets) * len(pads))
        return out

    return {"target": law([3]), "touching": law([2, 3]), "other": law([0, 1, 2, 3])}


def shifts(eps, w, table):
    """(adaptive, mga, mga-honest-count) gain / floor of a per-view table (16 x 4) through consistency map w."""
    adaptive = sum((table @ wv).max() for wv in w)
    out = [L.ratio(adaptive, eps)]
    for honest_count in (False, True):
        laws = crafted_law(eps, honest_count)
        total = 0.0
        for v, wv in enumerate(w):
            law = laws[view_kind(v)]  # a touching view (0, j) or (1, j) has the target attribute first
            total += law @ (table @ wv)
        out.append(L.ratio(total, eps))
    return out


def standard_table(eps):
    oue = L.oue(eps)
    return np.array([[(b - oue.q) / (oue.p - oue.q) for b in bits] for bits in PATTERNS])


def linear_in_counts_least(eps):
    """LP: least adaptive mean score over unbiased target-cell estimators a_v + b_v . y (per-cell counts)."""
    oue = L.oue(eps)
    n = L.M * 5 + L.M * 4
    cost = np.zeros(n)
    a_ub, a_eq, b_eq = [], [], []
    for v in range(L.M):
        cost[v * 5] = 1 / L.M
        cost[L.M * 5 + v * 4 : L.M * 5 + v * 4 + 4] = 1 / L.M
        for c in range(4):
            row = np.zeros(n)
            row[v * 5 + 1 + c], row[L.M * 5 + v * 4 + c] = 1, -1
            a_ub.append(row)
    for x, _ in L.records():
        row = np.zeros(n)
        for v in range(L.M):
            row[v * 5] = 1 / L.M
            row[v * 5 + 1 : v * 5 + 5] = np.where(np.arange(4) == L.cell_of(x, v), oue.p, oue.q) / L.M
        a_eq.append(row)
        b_eq.append(L.in_target(x))
    bounds = [(None, None)] * (L.M * 5) + [(0, None)] * (L.M * 4)
    res = linprog(cost, A_ub=np.array(a_ub), b_ub=np.zeros(len(a_ub)), A_eq=np.array(a_eq), b_eq=b_eq, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return L.ratio(res.fun, eps)


class ViewTables:
    """Symmetric per-view tables g = basis @ z (orbits of (pattern, cell) under GROUP), unbiased for every cell."""

    def __init__(self, eps, w):
        self.eps, self.w = eps, w
        keys = [(y, c) for y in range(16) for c in range(4)]
        move = [lambda k, g=g: (PATTERNS.index(tuple(PATTERNS[k[0]][g.index(c)] for c in range(4))), g[k[1]]) for g in GROUP]
        of, count = L.orbits(keys, move)
        self.basis = np.zeros((64, count))
        for (y, c), o in of.items():
            self.basis[y * 4 + c, o] = 1
        P = L.oue(eps).P
        rows = [np.concatenate([P[x] if c == cc else np.zeros(16) for cc in range(4)]) for x in range(4) for c in range(4)]
        # rows index g as [cell][pattern]; reorder to [pattern][cell]
        perm = [c * 16 + y for y in range(16) for c in range(4)]
        self.a_eq = np.array(rows)[:, perm] @ self.basis
        self.b_eq = np.array([float(x == c) for x in range(4) for c in range(4)])
        kinds = {}
        for wv in w:
            kinds.setdefault(tuple(np.round(wv, 12)), [np.array(wv), 0])[1] += 1
        self.kinds = list(kinds.values())

    def epigraph(self):
        """Rows [basis-coefficients of w . g(y), -e_kind] <= 0 and the cost (sum of kind multiplicities)."""
        nz, nk = self.basis.shape[1], len(self.kinds)
        rows = []
        for k, (wv, _) in enumerate(self.kinds):
            for y in range(16):
                sel = np.zeros(64)
                sel[y * 4 : y * 4 + 4] = wv
                rows.append(np.concatenate([sel @ self.basis, -np.eye(nk)[k]]))
        cost = np.concatenate([np.zeros(nz), [m for _, m in self.kinds]])
        return np.array(rows), cost

    def variance(self, table):
        """Per-report sum over cells of E (g_c(Y) - 1[X = c])^2, iid cell law."""
        P = L.oue(self.eps).P
        return sum(L.CELL_LAW[x] * P[x, y] * np.sum((table[y] - np.eye(4)[x]) ** 2) for x in range(4) for y in range(16))

    def solve(self, cap=None):
        """LP (cap None: least adaptive shift) or QP (least variance with adaptive shift <= cap). Returns a 16 x 4 table."""
        rows, cost = self.epigraph()
        nz = self.basis.shape[1]
        a_eq = np.hstack([self.a_eq, np.zeros((len(self.a_eq), len(self.kinds)))])
        if cap is None:
            res = linprog(cost, A_ub=rows, b_ub=np.zeros(len(rows)), A_eq=a_eq, b_eq=self.b_eq, bounds=(None, None), method="highs")
            assert res.status == 0, res.message
            return (self.basis @ res.x[:nz]).reshape(16, 4)
        a_ub, b_ub = np.vstack([rows, cost]), np.append(np.zeros(len(rows)), cap)
        start = linprog(np.zeros(len(cost)), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=self.b_eq, bounds=(None, None), method="highs")
        if start.status != 0:
            return None
        basis = null_space(a_eq)

        def table(s):
            return (self.basis @ (start.x + basis @ s)[:nz]).reshape(16, 4)

        res = minimize(lambda s: self.variance(table(s)), np.zeros(basis.shape[1]), method="SLSQP", constraints=[{"type": "ineq", "fun": lambda s: b_ub - a_ub @ (start.x + basis @ s)}], options={"maxiter": 1000, "ftol": 1e-12})
        return table(res.x)


def per_view_section(eps, w):
    """Section 3: per-view symmetric pattern tables through consistency."""
    views = ViewTables(eps, w)
    base = views.variance(standard_table(eps))
    least = views.solve()
    a, g, h = shifts(eps, w, least)
    print(f"  per-view pattern tables + consistency: least adaptive {a:.3f} x (mga {g:.3f} x, mga-honest-count {h:.3f} x, variance {views.variance(least) / base:.2f} x standard)")
    for cap in (2.0, 2.5, 3.0, 3.5, 4.0):
        table = views.solve(cap * (L.floor_factor(eps) - L.F_T) + L.F_T)
        if table is None:
            print(f"    adaptive <= {cap} x: infeasible")
            continue
        a, g, h = shifts(eps, w, table)
        print(f"    adaptive <= {cap} x: least variance {views.variance(table) / base:.3f} x standard per view; adaptive {a:.3f} x, mga {g:.3f} x, mga-honest-count {h:.3f} x")


def per_query_section(eps, w):
    """Section 4: one pattern-reading estimator of the target cell, capped at 2 x floor; returns its scores."""
    oracle = L.oue(eps)
    calm = L.released_variance(oracle, w)
    reduced = L.Reduced(oracle)
    least, _ = reduced.least()
    print(f"  one estimator per released cell (patterns): least adaptive {L.ratio(least, eps):.3f} x")
    scores = None
    for cap in (1.5, 2.0):
        out = reduced.least_variance(cap * (L.floor_factor(eps) - L.F_T) + L.F_T)
        variance, converged = out
        note = "" if converged else " (not converged: an upper bound)"
        print(f"    adaptive <= {cap} x: least variance {variance:.2f}{note} = {variance / calm:.3f} x calm-core's released target cell ({calm:.2f})")
        if cap == 2.0:
            scores = reduced.scores
    return scores


def release_section(eps, by_cell):
    """Section 5: every cell of a pair marginal with its own capped pattern estimator, against calm-core's release."""
    oracle = L.oue(eps)
    est = oracle.standard()
    sums = [0.0, 0.0]
    for cell in range(4):
        f, w = L.CELL_LAW[cell], by_cell[cell]
        calm = L.released_variance(oracle, w, f)
        adaptive = L.ratio(sum((est @ wv).max() for wv in w), eps, f)
        variance, converged = L.Reduced(oracle, cell).least_variance(2 * (L.floor_factor(eps) - f) + f)
        sums[0] += calm
        sums[1] += variance
        note = "" if converged else " (not converged: an upper bound)"
        print(f"    cell (x0, x1) = ({cell >> 1}, {cell & 1}), f = {f:.2f}: calm-core adaptive {adaptive:.3f} x, variance {calm:.2f}; capped at 2 x: variance {variance:.2f}{note} = {variance / calm:.3f} x")
    print(f"  every cell its own estimator capped at 2 x: release SSE {sums[1] / sums[0]:.3f} x calm-core's")


def main():
    path = sys.argv[sys.argv.index("--map") + 1] if "--map" in sys.argv else None
    maps = L.consistency_map(path)
    export = {}
    for eps in (1.0, 0.5):
        w, by_cell = maps[eps][2], maps[eps][3]
        a, g, h = shifts(eps, w, standard_table(eps))
        print(f"eps {eps}: calm-core's release (standard OUE estimate): adaptive {a:.3f} x floor, mga {g:.3f} x, mga-honest-count {h:.3f} x")
        print(f"  per-cell counts only: least adaptive over every linear unbiased estimator {linear_in_counts_least(eps):.3f} x")
        per_view_section(eps, w)
        scores = per_query_section(eps, w)
        export[str(eps)] = {"patterns": [list(b) for b in PATTERNS], "scores": scores.tolist()}
        release_section(eps, by_cell)
    if "--export" in sys.argv:
        with open(sys.argv[sys.argv.index("--export") + 1], "w") as f:
            json.dump(export, f)


if __name__ == "__main__":
    main()
