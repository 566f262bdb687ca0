"""The exact optimum of the private answer on a small graph: a linear program.

    python optimum.py EDGES_CSV COMMUNITIES_CSV DELTA EPS...

Variables P[s, o] (the probability that a mechanism publishes community o when
the source is node s); maximise the mean over sources of P[s, comm(s)] subject to
Σ_o P[s, o] = 1 and, for every edge (s, t) in both directions and every o,
P[s, o] ≤ e^ε·P[t, o] + δ (implied by (ε, δ)-DP for a move of the source by one
hop). Its optimum is therefore an upper bound on every (ε, δ)-DP mechanism's
right-community rate — the exact ceiling that forecast.RoutedCeiling bounds from
above by disjoint pairs and stars. Solved by HiGHS's interior point method
(scipy); n·k variables and 2·|E|·k constraints, so graphs up to ~10³ nodes.
"""
import csv
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog


def load(edges_path, comm_path):
    index, part, ids = {}, [], {}
    with open(comm_path) as f:
        for row in csv.DictReader(f):
            index[row["node"]] = len(part)
            part.append(ids.setdefault(row["community"], len(ids)))
    edges = []
    with open(edges_path) as f:
        for row in csv.DictReader(f):
            s, t = index[row["source"]], index[row["target"]]
            if s != t:
                edges.append((s, t))
    return np.array(part), len(ids), edges


def optimum(part, k, edges, eps, delta):
    n = len(part)
    directed = np.array(edges + [(t, s) for s, t in edges])
    m = len(directed)
    o = np.tile(np.arange(k), m)
    src, dst = np.repeat(directed[:, 0], k), np.repeat(directed[:, 1], k)
    rows = np.repeat(np.arange(m * k), 2)
    cols = np.stack([src * k + o, dst * k + o], 1).ravel()
    vals = np.tile([1.0, -np.exp(eps)], m * k)
    a_ub = sp.csr_matrix((vals, (rows, cols)), shape=(m * k, n * k))
    a_eq = sp.csr_matrix((np.ones(n * k), (np.repeat(np.arange(n), k), np.arange(n * k))), shape=(n, n * k))
    c = np.zeros(n * k)
    c[np.arange(n) * k + part] = -1.0 / n
    res = linprog(c, A_ub=a_ub, b_ub=np.full(m * k, delta), A_eq=a_eq, b_eq=np.ones(n), bounds=(0, 1), method="highs-ipm")
    if res.status != 0:
        raise SystemExit(f"optimum: HiGHS did not solve the program at ε = {eps}: {res.message}")
    return -res.fun


def main():
    part, k, edges = load(sys.argv[1], sys.argv[2])
    delta = float(sys.argv[3])
    for eps in map(float, sys.argv[4:]):
        t0 = time.time()
        opt = optimum(part, k, edges, eps, delta)
        print(f'{{"epsilon": {eps}, "optimum": {opt:.4f}, "nodes": {len(part)}, "communities": {k}, "seconds": {time.time() - t0:.1f}}}', flush=True)


if __name__ == "__main__":
    main()
