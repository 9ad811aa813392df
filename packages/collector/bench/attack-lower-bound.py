"""
Least gain a maximal-gain attacker in uniformly drawn views can get against ANY
linear unbiased estimator of the target cell from CALM's pair views (the issue's
probe: d = 8 binary attributes, all 28 pairs as views, target (x0, x1) = (1, 1),
f_T = 0.09). Not a speed benchmark; needs python3 with numpy and scipy:
`python3 bench/attack-lower-bound.py`.

An estimator sums per-report scores g_v(y) (report y in view v) over the N reports
and divides by N; it is unbiased when (1/m) sum_v E[g_v(Y) | x] = 1[x0 = 1, x1 = 1]
for every record x (256 records). A fake in view v sends argmax_y g_v(y), so beta
fakes shift the estimate by beta (mean_v max_y g_v(y) - f_T). The linear program
minimizes mean_v max_y g_v(y) over all unbiased g (GRR: 4 outputs per view; OUE:
16 bit patterns per view, so estimators that read whole patterns are included) and
prints the minimum gain over the floor beta (e^eps / (e^eps - 1) - f_T), and the
variance of the minimizing estimator (one optimal vertex; honest records with
P(1) = 0.3) relative to the target view's own estimate (C(T)/N_v - q)/(p - q).
Siblings: `bench/view-oracle-bound.py` (the same for SS, BLH, OLH views, with
variances and the least variance under a 1.5 x / 2 x cap) and
`bench/oue-estimator-bound.py` (OUE: per-cell counts, per-view tables through
consistency, one capped estimator per released cell).
"""
import itertools

import numpy as np
from scipy.optimize import linprog

D = 8
PAIRS = list(itertools.combinations(range(D), 2))
F_T = 0.09


def channel(oracle, eps):
    """P(y | cell) for a 4-cell view: rows cells, columns outputs."""
    e = np.exp(eps)
    if oracle == "grr":
        p, q = e / (e + 3), 1 / (e + 3)
        return np.where(np.eye(4) == 1, p, q)
    p, q = 0.5, 1 / (e + 1)
    out = np.zeros((4, 16))
    for x in range(4):
        for y in range(16):
            prob = 1.0
            for c in range(4):
                bit = (y >> c) & 1
                r = p if c == x else q
                prob *= r if bit else 1 - r
            out[x, y] = prob
    return out


def least_gain(oracle, eps):
    P = channel(oracle, eps)
    outs = P.shape[1]
    m = len(PAIRS)
    nvar = m * outs + m  # g_v(y), then t_v
    c = np.zeros(nvar)
    c[m * outs :] = 1 / m
    a_eq, b_eq = [], []
    for x in itertools.product([0, 1], repeat=D):
        row = np.zeros(nvar)
        for v, (a, b) in enumerate(PAIRS):
            cell = 2 * x[a] + x[b]
            row[v * outs : (v + 1) * outs] = P[cell] / m
        a_eq.append(row)
        b_eq.append(1.0 if x[0] == 1 and x[1] == 1 else 0.0)
    a_ub, b_ub = [], []
    for v in range(m):
        for y in range(outs):
            row = np.zeros(nvar)
            row[v * outs + y] = 1
            row[m * outs + v] = -1
            a_ub.append(row)
            b_ub.append(0.0)
    res = linprog(c, A_ub=np.array(a_ub), b_ub=b_ub, A_eq=np.array(a_eq), b_eq=b_eq, bounds=(None, None))
    assert res.status == 0, res.message
    e = np.exp(eps)
    # Variance per report of the LP's estimator for honest records (P(1) = 0.3 iid),
    # against the target view's own unbiased estimator (CALM's raw view estimate).
    law = np.array([0.49, 0.21, 0.21, 0.09])
    g = res.x[: m * outs].reshape(m, outs)
    second = np.mean([law @ P @ (g[v] ** 2) for v in range(m)])
    if oracle == "grr":
        p, q = e / (e + 3), 1 / (e + 3)
        own = m * (np.eye(4)[3] - q) / (p - q)
    else:
        p, q = 0.5, 1 / (e + 1)
        own = m * (np.array([(y >> 3) & 1 for y in range(16)]) - q) / (p - q)
    baseline = (law @ P @ own**2) / m
    return (res.fun - F_T) / (e / (e - 1) - F_T), (second - F_T**2) / (baseline - F_T**2)


for oracle in ["grr", "oue"]:
    for eps in [1.0, 0.5]:
        gain, variance = least_gain(oracle, eps)
        print(
            f"{oracle} eps={eps}: least MGA gain over any linear unbiased estimator = {gain:.3f} x floor; "
            f"that estimator's variance = {variance:.2f} x the target view's own estimate"
        )
