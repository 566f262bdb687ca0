"""The naive peer for a certified Δ2: scipy.sparse.linalg.expm_multiply on
every edge difference e_i − e_j, Δ2 = max ‖exp(−τL)(e_i − e_j)‖. It is
timed on a random sample of edges (at most S, stopping after 120 s once 3 are
timed) and extrapolated to all edges (the cost
per edge does not depend on which edge). It is not a certificate
(expm_multiply bounds a backward error, not the forward one), so it also
checks that graphcloak's proven bound is ≥ every sampled edge's value.
Run by run.sh inside its own venv."""
import json
import statistics
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.sparse.linalg import expm_multiply


def main(d, sample, seed):
    with open(f"{d}/go.json") as f:
        go = json.load(f)
    n, tau = go["N"], go["Tau"]
    e = np.loadtxt(f"{d}/edges.csv", delimiter=",", ndmin=2)
    u, v, w = e[:, 0].astype(np.int64), e[:, 1].astype(np.int64), e[:, 2]
    W = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([u, v]), np.concatenate([v, u]))), shape=(n, n)).tocsr()
    L = (sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W).tocsr()
    A = (-tau * L).tocsr()
    trace = float(A.diagonal().sum())
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(u), size=min(sample, len(u)), replace=False)
    times, best = [], 0.0
    for k in pick:
        if len(times) >= 3 and sum(times) > 120:
            break  # enough to extrapolate: the cost per edge hardly varies
        b = np.zeros(n)
        b[u[k]], b[v[k]] = 1.0, -1.0
        t0 = time.perf_counter()
        y = expm_multiply(A, b, traceA=trace)
        times.append(time.perf_counter() - t0)
        best = max(best, float(np.linalg.norm(y)))
    per = statistics.median(times)
    total = per * len(u)
    print(f"scipy {scipy.__version__} expm_multiply: {len(times)} sampled edges, per edge min {min(times):.4f} s, "
          f"median {per:.4f} s -> all {len(u)} edges ≈ {total:.0f} s ({total / 3600:.2f} h); "
          f"graphcloak {go['Seconds']:.1f} s: {total / go['Seconds']:.0f}x")
    print(f"max over the sample {best:.10g} <= graphcloak's proven Δ2 {go['Delta2']:.10g}: {best <= go['Delta2'] * (1 + 1e-9)}")
    if best > go["Delta2"] * (1 + 1e-9):
        sys.exit("ERROR: a sampled edge exceeds the certified bound")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1)
