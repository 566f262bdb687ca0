"""Readings of S random unit sources on an edge list, diffused at τ by
scipy's expm_multiply (independent of graphcloak's Chebyshev action), with
fresh i.i.d. Gaussian noise of rms ν·μ/n per sensor (μ = 1, mean not
removed). Writes a CSV: node, then one column per source, and a header
row naming each column's source node.

    python noisy_readings.py EDGES.csv TAU NU S SEED OUT.csv
"""
import csv
import sys

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import expm_multiply

edges, tau, nu, S, seed, out = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
keys, index, rows, cols = [], {}, [], []
with open(edges) as f:
    r = csv.reader(f)
    next(r)
    for a, b, *_ in r:
        for k in (a, b):
            if k not in index:
                index[k] = len(keys)
                keys.append(k)
        if a != b:
            rows.append(index[a])
            cols.append(index[b])
n = len(keys)
A = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n)).tocsr()
A = ((A + A.T) > 0).astype(float)  # one undirected edge per pair (merge)
L = sp.diags(np.asarray(A.sum(axis=1)).ravel()) - A
rng = np.random.default_rng(seed)
src = rng.choice(n, size=S, replace=False)
E = np.zeros((n, S))
E[src, np.arange(S)] = 1.0
Y = expm_multiply(-tau * L.tocsc(), E)
Y += rng.normal(0.0, nu / n, size=Y.shape)
with open(out, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["node"] + [keys[s] for s in src])
    for i in range(n):
        w.writerow([keys[i]] + ["%.17g" % v for v in Y[i]])
print("n=%d S=%d nu=%g tau=%g" % (n, S, nu, tau))
