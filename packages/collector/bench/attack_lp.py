"""
Shared pieces of the attack linear programs (`bench/view-oracle-bound.py`,
`bench/oue-estimator-bound.py`): the issue's probe (d = 8 binary attributes with
P(1) = 0.3 iid, all 28 pair views of 4 cells, target (x0, x1) = (1, 1), f_T = 0.09),
the output laws of the candidate view oracles, calm-core's consistency map, and
the orbit reduction that keeps the programs small.

A view oracle is a channel P(out | cell) over the view's 4 cells. Every output
carries `sig`, a tuple over the cells (GRR: one-hot of the reported cell; OUE/SS:
the bits / the subset; hashing: the hash values h(c)), and `seed` (hashing: the
hash function, drawn by the device and bound by its token in protected mode, so a
fake chooses only the value; None otherwise). `support[o][c]` is 1 when output o
supports cell c; the oracle's standard estimate of cell c is (support - q)/(p - q).
"""
import itertools
import json
import os
import subprocess

import numpy as np

D = 8
PAIRS = list(itertools.combinations(range(D), 2))
M = len(PAIRS)
F_T = 0.09
P1 = 0.3
CELL_LAW = np.array([(1 - P1) ** 2, (1 - P1) * P1, P1 * (1 - P1), P1**2])
VIEW = {pair: v for v, pair in enumerate(PAIRS)}
HERE = os.path.dirname(os.path.abspath(__file__))


def floor_factor(eps):
    """e^eps / (e^eps - 1): a fake's shift under binary randomized response (the floor is beta (this - f_T))."""
    e = np.exp(eps)
    return e / (e - 1)


def ratio(shift, eps, f=F_T):
    """Gain / floor for fakes whose mean per-report score is `shift`: (shift - f_T) / (e^eps/(e^eps - 1) - f_T)."""
    return (shift - f) / (floor_factor(eps) - f)


class Oracle:
    """Outputs (sig, seed), channel P (4 x outputs), support (outputs x 4), and p, q of the standard estimate."""

    def __init__(self, name, outputs, law, support, p, q):
        self.name, self.outputs, self.p, self.q = name, outputs, p, q
        self.P = np.array([[law(x, o) for o in outputs] for x in range(4)])
        self.support = np.array([support(o) for o in outputs], dtype=float)
        self.index = {o: i for i, o in enumerate(outputs)}
        assert np.allclose(self.P.sum(1), 1), name

    def permute(self, o, pi):
        """The output o with cells renamed c -> pi[c] (every per-cell entry of sig, and a hash seed)."""

        def move(t):
            out = [None] * 4
            for c in range(4):
                out[pi[c]] = t[c]
            return tuple(out)

        sig, seed = o
        if seed is None:
            return (move(sig), None)
        h = move(seed)
        return (move(sig[:4]) + (sig[4],) + h, h)

    def standard(self):
        """outputs x 4: the standard per-cell estimate (support - q)/(p - q) of each output."""
        return (self.support - self.q) / (self.p - self.q)

    def seeds(self):
        return sorted({o[1] for o in self.outputs}, key=repr)


def grr(eps):
    e = np.exp(eps)
    p, q = e / (e + 3), 1 / (e + 3)
    outs = [(tuple(int(c == y) for c in range(4)), None) for y in range(4)]
    return Oracle("GRR", outs, lambda x, o: p if o[0][x] else q, lambda o: o[0], p, q)


def oue(eps):
    p, q = 0.5, 1 / (np.exp(eps) + 1)
    outs = [(bits, None) for bits in itertools.product([0, 1], repeat=4)]

    def law(x, o):
        return np.prod([(r if b else 1 - r) for c, b in enumerate(o[0]) for r in [p if c == x else q]])

    return Oracle("OUE", outs, law, lambda o: o[0], p, q)


def subset_selection(eps, omega=2):
    """Subset Selection: a subset of size omega, weight e^eps when it holds the value."""
    e = np.exp(eps)
    subsets = [s for s in itertools.product([0, 1], repeat=4) if sum(s) == omega]
    total = sum(e if s[0] else 1 for s in subsets)  # the same for every value, by symmetry
    p = omega * e / (omega * e + 4 - omega)
    q = (omega - p) / 3
    outs = [(s, None) for s in subsets]
    return Oracle(f"SS (omega {omega})", outs, lambda x, o: (e if o[0][x] else 1) / total, lambda o: o[0], p, q)


def local_hash(eps, g, name):
    """Local hashing with a uniformly random hash function h: 4 cells -> [g] (the seed), GRR over [g] on h(x)."""
    e = np.exp(eps)
    p = e / (e + g - 1)
    outs = [(h, (h, v)) for h in itertools.product(range(g), repeat=4) for v in range(g)]
    outs = [(tuple(int(h[c] == v) for c in range(4)) + (v,) + h, h) for h, (_, v) in outs]
    weight = 1 / g**4

    def law(x, o):
        v, h = o[0][4], o[1]
        return weight * (p if h[x] == v else (1 - p) / (g - 1))

    return Oracle(name, outs, law, lambda o: o[0][:4], p, 1 / g)


def oracles(eps):
    """The candidate oracles for a 4-cell view at eps (OLH's range g = round(e^eps) + 1, as createOlh)."""
    g = int(round(np.exp(eps))) + 1
    return [grr(eps), oue(eps), subset_selection(eps), local_hash(eps, 2, "BLH"), local_hash(eps, g, f"OLH (g {g})")]


def consistency_map(path=None):
    """{eps: (tv, attrs, w, by_cell)}: calm-core's consistency as released(T) = r0 + sum_v w[v] . f_v
    (bench/consistency-map.ts); w for the target (1, 1), by_cell[c] for each cell c of the target's view."""
    if path:
        text = open(path).read()
    else:
        text = subprocess.run(["npx", "tsx", "bench/consistency-map.ts"], cwd=os.path.dirname(HERE), capture_output=True, text=True, check=True).stdout
    data = json.loads(text)
    return {float(k): (v["tv"], [tuple(a) for a in v["attrs"]], np.array(v["w"]), [np.array(b) for b in v["byCell"]]) for k, v in data.items()}


def records():
    """Every record of the probe with its probability (P(1) = 0.3 iid)."""
    for x in itertools.product([0, 1], repeat=D):
        yield x, float(np.prod([P1 if b else 1 - P1 for b in x]))


def cell_of(x, v):
    i, j = PAIRS[v]
    return 2 * x[i] + x[j]


def in_target(x, cell=3):
    """1 when record x is in the target cell of attributes (0, 1) (cell 2 x0 + x1; 3 is (1, 1))."""
    return 1.0 if 2 * x[0] + x[1] == cell else 0.0


SWAP_CELLS = (0, 2, 1, 3)  # a pair view's cell 2a + b read with its attributes in the other order


def act(sigma, v, oracle, o):
    """An attribute permutation sigma applied to output o of view v: (view, output) it becomes."""
    i, j = PAIRS[v]
    a, b = sigma[i], sigma[j]
    if a < b:
        return VIEW[(a, b)], o
    return VIEW[(b, a)], oracle.permute(o, SWAP_CELLS)


def target_symmetries(cell=3):
    """Generators of the attribute permutations that keep the target cell of (x0, x1) and the iid law: S6 on 2..7,
    and swapping 0 and 1 when the cell is (0, 0) or (1, 1)."""
    swap01 = [1, 0] + list(range(2, D))
    swap23 = [0, 1, 3, 2] + list(range(4, D))
    cycle = [0, 1] + [2 + (k - 1) % 6 for k in range(2, D)]
    return ([swap01] if cell in (0, 3) else []) + [swap23, cycle]


def relabel(o, tau):
    """A hashing output (h, v) with hash values renamed s -> tau[s]: (tau o h, tau(v)), the same law and support."""
    sig, seed = o
    h = tuple(tau[s] for s in seed)
    return (sig[:4] + (tau[sig[4]],) + h, h)


def output_symmetries(oracle, cell=3):
    """Moves (v, o) -> (v', o') that keep the target, the iid law and the oracle's channel: the attribute
    permutations of target_symmetries, and for hashing oracles the renaming of hash values."""
    moves = [lambda v, o, g=g: act(g, v, oracle, o) for g in target_symmetries(cell)]
    if oracle.outputs[0][1] is not None:
        g = max(s for o in oracle.outputs for s in o[1]) + 1
        swap = [1, 0] + list(range(2, g))
        cycle = [(s + 1) % g for s in range(g)]
        moves += [lambda v, o, t=t: (v, relabel(o, t)) for t in (swap, cycle)]
    return moves


def orbits(keys, moves):
    """Union-find orbits of `keys` under `moves` (functions key -> key); returns ({key: orbit index}, count)."""
    parent = {k: k for k in keys}

    def find(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for k in keys:
        for move in moves:
            a, b = find(k), find(move(k))
            if a != b:
                parent[a] = b
    roots = {}
    index = {k: roots.setdefault(find(k), len(roots)) for k in keys}
    return index, len(roots)


class Reduced:
    """The target-cell estimation problem over all views, orbit-reduced: variables are per-orbit scores
    z (g_v(o) = z[orbit of (v, o)]) then per-orbit fake bests t (of (v, seed)). Fields: ng, nt, a_ub (sparse,
    g - t <= 0), cost (the fakes' mean best score, a linear function of t), a_eq, b_eq (unbiased for every
    record), weight (per z orbit, the honest per-report law mass: variance = weight . z^2 - f_T^2)."""

    def __init__(self, oracle, cell=3):
        from scipy.sparse import csr_matrix

        self.f = CELL_LAW[cell]  # the target cell's frequency in the probe's population
        moves = output_symmetries(oracle, cell)
        keys = [(v, i) for v in range(M) for i in range(len(oracle.outputs))]
        g_of, self.ng = orbits(keys, [lambda k, f=f: self._move(oracle, f, k) for f in moves])
        self.g_of, self.outputs = g_of, len(oracle.outputs)
        first = {}
        for v, i in keys:
            first.setdefault((v, oracle.outputs[i][1]), oracle.outputs[i])
        seed_keys = list(first)

        def seed_move(f, key):
            nv, no = f(key[0], first[key])
            return (nv, no[1])

        t_of, self.nt = orbits(seed_keys, [lambda k, f=f: seed_move(f, k) for f in moves])
        n_seeds = len({o[1] for o in oracle.outputs})
        self.cost = np.zeros(self.ng + self.nt)
        for key in seed_keys:
            self.cost[self.ng + t_of[key]] += 1 / (M * n_seeds)
        pairs = sorted({(g_of[(v, i)], self.ng + t_of[(v, oracle.outputs[i][1])]) for v, i in keys})
        rows = [r for r in range(len(pairs)) for _ in (0, 1)]
        cols = [c for pair in pairs for c in pair]
        vals = [1.0, -1.0] * len(pairs)
        self.a_ub = csr_matrix((vals, (rows, cols)), shape=(len(pairs), self.ng + self.nt))
        law = CELL_LAW @ oracle.P
        self.weight = np.zeros(self.ng)
        a_eq, b_eq = [], []
        for v in range(M):
            np.add.at(self.weight, [g_of[(v, i)] for i in range(len(oracle.outputs))], law / M)
        for x, _ in records():
            row = np.zeros(self.ng + self.nt)
            for v in range(M):
                np.add.at(row, [g_of[(v, i)] for i in range(len(oracle.outputs))], oracle.P[cell_of(x, v)] / M)
            a_eq.append(row)
            b_eq.append(in_target(x, cell))
        self.a_eq, self.b_eq = np.array(a_eq), np.array(b_eq)

    @staticmethod
    def _move(oracle, f, key):
        nv, no = f(key[0], oracle.outputs[key[1]])
        return (nv, oracle.index[no])

    def least(self):
        """LP: the least mean best score of fakes over unbiased estimators (HiGHS). Returns (value, z)."""
        from scipy.optimize import linprog

        res = linprog(self.cost, A_ub=self.a_ub, b_ub=np.zeros(self.a_ub.shape[0]), A_eq=self.a_eq, b_eq=self.b_eq, bounds=(None, None), method="highs")
        assert res.status == 0, res.message
        return res.fun, res.x[: self.ng]

    def least_variance(self, cap):
        """QP (SLSQP over the null space of the unbiasedness constraints): the least per-report variance of an
        unbiased estimator whose fakes' mean best score is <= cap. Returns (variance, converged) or None if infeasible;
        the estimator's scores g_v(o) (views x outputs) are left in `self.scores`."""
        from scipy.linalg import null_space
        from scipy.optimize import linprog, minimize

        a_ub = np.vstack([self.a_ub.toarray(), self.cost])
        b_ub = np.append(np.zeros(self.a_ub.shape[0]), cap)
        start = linprog(np.zeros(self.ng + self.nt), A_ub=a_ub, b_ub=b_ub, A_eq=self.a_eq, b_eq=self.b_eq, bounds=(None, None), method="highs")
        if start.status != 0:
            return None
        x0 = start.x
        basis = null_space(self.a_eq)
        w = np.append(self.weight, np.zeros(self.nt))

        def f(s):
            x = x0 + basis @ s
            return w @ x**2

        def df(s):
            return basis.T @ (2 * w * (x0 + basis @ s))

        g_ub, h_ub = a_ub @ basis, b_ub - a_ub @ x0
        res = minimize(f, np.zeros(basis.shape[1]), jac=df, method="SLSQP", constraints=[{"type": "ineq", "fun": lambda s: h_ub - g_ub @ s, "jac": lambda s: -g_ub}], options={"maxiter": 3000, "ftol": 1e-14})
        x = x0 + basis @ res.x
        assert np.all(a_ub @ x <= b_ub + 1e-6) and np.allclose(self.a_eq @ x, self.b_eq, atol=1e-8)
        self.scores = np.array([[x[self.g_of[(v, i)]] for i in range(self.outputs)] for v in range(M)])
        return w @ x**2 - self.f**2, bool(res.success)


def released_variance(oracle, w, f=F_T):
    """Per-report variance of calm-core's released target cell: (1/m) sum_v E[(m w_v . est(O))^2] - f_T^2, iid records."""
    est = oracle.standard()
    second = 0.0
    for wv in w:
        score = M * (est @ wv)
        for cell in range(4):
            second += CELL_LAW[cell] * (oracle.P[cell] @ score**2) / M
    return second - f**2
