"""Time scipy.sparse.linalg.expm_multiply on the graph written by main.go and
compare with the Go result. Run by run.sh inside its own venv."""
import inspect
import json
import statistics
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.sparse.linalg import expm_multiply


def main(d, runs):
    with open(f"{d}/go.json") as f:
        go = json.load(f)
    n, tau, tol = go["N"], go["Tau"], go["Tol"]
    e = np.loadtxt(f"{d}/edges.csv", delimiter=",", dtype=np.int64)
    u, v = e[:, 0], e[:, 1]
    w = np.ones(len(u))
    W = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([u, v]), np.concatenate([v, u]))), shape=(n, n)).tocsr()
    deg = np.asarray(W.sum(axis=1)).ravel()
    L = (sp.diags(deg) - W).tocsr()
    A = (-tau * L).tocsr()
    x = np.loadtxt(f"{d}/v.txt")
    y_go = np.loadtxt(f"{d}/go_y.txt")
    trace = float(A.diagonal().sum())
    params = inspect.signature(expm_multiply).parameters
    kw = {"traceA": trace} if "traceA" in params else {}
    # expm_multiply has no accuracy argument in any scipy release: it always
    # targets double precision (backward error ≤ 2^-53), stricter than tol.
    y = expm_multiply(A, x, **kw)  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        y = expm_multiply(A, x, **kw)
        times.append(time.perf_counter() - t0)
    t_sp = statistics.median(times)
    diff = float(np.max(np.abs(y - y_go)))
    l2 = float(np.linalg.norm(y - y_go))
    print(f"graph: n={n}, |E|={go['Edges']}, tau={tau}, tol={tol}, Go degree K={go['Degree']}, B={go['B']:.4f}, "
          f"Go workers={go['Workers']}, runs={runs} (median after warm-up)")
    print(f"scipy {scipy.__version__}, numpy {np.__version__}, expm_multiply kwargs={sorted(kw)}")
    print()
    print(f"{'Go (s)':>10} {'Go apply (s)':>13} {'scipy (s)':>10} {'speed-up':>9} {'max |diff|':>11} {'‖diff‖₂':>10} {'Go bound·‖v‖':>13}")
    print(f"{go['Seconds']:>10.4f} {go['ApplySeconds']:>13.4f} {t_sp:>10.4f} {t_sp / go['Seconds']:>8.1f}x "
          f"{diff:>11.2e} {l2:>10.2e} {go['Bound']:>13.2e}")
    if l2 > go["Bound"] + 1e-12 * np.linalg.norm(x):
        print("WARNING: difference exceeds Go's certified bound (plus scipy's own error)", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5)
