"""Why preferential-attachment graphs get no exact Δ2: the evidence behind
the PA rows of docs/results.md. Run by expander.sh inside run.sh's venv, on graphs
written by `go run ./bench/sensitivity -dir DIR`.

On the first (small) graph, a dense eigendecomposition gives the exact
max q_e = max ‖exp(−τL)(e_i − e_j)‖² and sets it beside the bounds that the
available information can prove:
  - R_e/(2eτ): every bound built from the edge's neighbourhood is at best the
    effective-resistance bound (q_e = ∫ e^{−2τλ} dμ ≤ sup λe^{−2τλ} · ∫ dμ/λ),
    here even with the true, global resistance R_e;
  - 2·exp(−2τλ₂): what a proven lower bound on the spectral gap λ₂ would give.
On every graph it then measures the cost of proving λ₂ ≥ a by an inertia
count (a sparse LDLᵀ of L − aI, minimum-degree ordering): the factor's
entries and time, fitted as a power of n and extrapolated to 10^5 nodes."""
import json
import math
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu


def load(d):
    with open(f"{d}/go.json") as f:
        go = json.load(f)
    e = np.loadtxt(f"{d}/edges.csv", delimiter=",", ndmin=2)
    u, v, w = e[:, 0].astype(np.int64), e[:, 1].astype(np.int64), e[:, 2]
    n = go["N"]
    W = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([u, v]), np.concatenate([v, u]))), shape=(n, n)).tocsr()
    L = (sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W).tocsc()
    return go, L, u, v


def spectrum(go, L, u, v):
    tau = go["Tau"]
    lam, U = np.linalg.eigh(L.toarray())
    D = U[u] - U[v]
    q = (D**2 * np.exp(-2 * tau * lam)).sum(axis=1)
    R = (D[:, 1:] ** 2 / lam[1:]).sum(axis=1)  # connected: λ₂ > 0
    dq = math.sqrt(q.max())
    print(f"{go['Graph']}, tau {tau}: n {L.shape[0]}, lambda_2 {lam[1]:.4f}, lambda_max {lam[-1]:.1f}")
    print(f"  exact Delta2 (numpy)            {dq:.6g}   graphcloak {go['Delta2']:.6g} (exact {go['Exact']}), ratio {go['Delta2'] / dq:.6f}")
    print(f"  neighbourhood bound, R_e <= 1   {math.sqrt(1 / (2 * math.e * tau)):.6g}   ({math.sqrt(1 / (2 * math.e * tau)) / dq:.0f}x)")
    rb = math.sqrt(R.max() / (2 * math.e * tau))
    print(f"  with the true max R_e {R.max():.3f}    {rb:.6g}   ({rb / dq:.0f}x)")
    gb = math.sqrt(2 * math.exp(-2 * tau * lam[1]))
    print(f"  with a proven lambda_2          {gb:.6g}   ({gb / dq:.1f}x)")
    return lam[1]


def fill(go, L, a):
    n = L.shape[0]
    M = (L - a * sp.identity(n, format="csc")).tocsc()
    t0 = time.perf_counter()
    lu = splu(M, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    secs = time.perf_counter() - t0
    entries = (lu.L.nnz + lu.U.nnz) / 2  # one triangle of LDLᵀ
    print(f"  LDL^T of L - {a:.3g} I, n {n}: {entries:.3g} entries ({entries / (n * n / 2):.2f} of a dense triangle), {secs:.1f} s")
    return n, entries, secs


def main(dirs):
    graphs = [load(d) for d in dirs]
    a = spectrum(*graphs[0]) / 2
    rows = [fill(go, L, a) for go, L, _, _ in graphs]
    if len(rows) >= 2:
        (n0, e0, s0), (n1, e1, s1) = rows[-2], rows[-1]
        pe, ps = math.log(e1 / e0) / math.log(n1 / n0), math.log(s1 / s0) / math.log(n1 / n0)
        f = 1e5 / n1
        print(f"  fitted: entries ~ n^{pe:.2f}, time ~ n^{ps:.2f}; at n = 10^5: "
              f"{e1 * f**pe * 8 / 2**30:.0f} GiB, {s1 * f**ps:.0f} s (one inertia count; a bisection needs several)")


if __name__ == "__main__":
    main(sys.argv[1:])
