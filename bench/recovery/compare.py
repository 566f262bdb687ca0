"""Solve graphcloak's exported BPDN instances with peers and print one table.

    min 1ᵀf  s.t.  ‖Mf − y‖₂ ≤ η,  0 ≤ f ≤ 1

CVXPY with Clarabel and ECOS solves exactly this problem. spgl1 has no box:
it solves the unboxed BPDN min ‖f‖₁ s.t. ‖Mf − y‖₂ ≤ η and is reported as
such (its objective is not comparable when the box is active or f ≥ 0 is
violated). Times: CVXPY wall time of prob.solve() (compile + solve, what a
user pays) and the solver's own time; Go time is the median BPDN solve on a
model of the very same M, dense (a copy) or spectral (a thin SVD of M),
whichever has the smaller build + solve time; "+model" adds that model's
construction to the Go time.
"""
import glob
import json
import os
import sys
import time
import warnings

import numpy as np
import logging

logging.disable(logging.WARNING)

warnings.filterwarnings("ignore")


def load(d):
    out = []
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        with open(path) as fh:
            x = json.load(fh)
        x["M"] = np.array(x["M"]).reshape(x["m"], x["n"])
        x["y"] = np.array(x["y"])
        out.append(x)
    return out


def cvx(inst, solver):
    import cvxpy as cp

    M, y, eta = inst["M"], inst["y"], inst["eta"]
    f = cp.Variable(inst["n"])
    prob = cp.Problem(cp.Minimize(cp.sum(f)), [cp.norm(M @ f - y, 2) <= eta, f >= 0, f <= 1])
    t0 = time.perf_counter()
    try:
        prob.solve(solver=solver)
    except Exception as e:  # solver failure is a result, not a crash
        return {"status": "error: " + str(e).splitlines()[0][:40], "obj": None, "wall": time.perf_counter() - t0, "solve": None}
    wall = time.perf_counter() - t0
    st = prob.solver_stats.solve_time if prob.solver_stats else None
    obj = prob.value if prob.status in ("optimal", "optimal_inaccurate") else None
    return {"status": prob.status, "obj": obj, "wall": wall, "solve": st}


def spgl1_run(inst):
    import spgl1

    M, y, eta = inst["M"], inst["y"], inst["eta"]
    t0 = time.perf_counter()
    try:
        x, r, g, info = spgl1.spg_bpdn(M, y, eta, verbosity=0, iter_lim=100000)
    except Exception as e:
        return {"status": "error", "obj": None, "wall": time.perf_counter() - t0}
    wall = time.perf_counter() - t0
    res = float(np.linalg.norm(M @ x - y))
    return {"status": "stat%d" % info["stat"], "obj": float(np.abs(x).sum()), "wall": wall,
            "res_over_eta": res / eta, "min": float(x.min()), "max": float(x.max())}


def fmt(v, spec=".6g"):
    return "-" if v is None else format(v, spec)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "bench-out"
    insts = load(d)
    solvers = []
    import cvxpy as cp

    for s in ("CLARABEL", "ECOS"):
        if s in cp.installed_solvers():
            solvers.append(s)
    print("cvxpy %s, solvers %s; numpy %s" % (cp.__version__, solvers, np.__version__))
    hdr = "%-22s %-10s %-12s %-9s %-9s | " % ("instance", "go status", "go 1ᵀf", "go ms", "go form")
    for s in solvers:
        hdr += "%-12s %-12s %-9s %-9s %-8s %-8s | " % (s + " st", "1ᵀf", "wall ms", "solve ms", "speedup", "+model")
    hdr += "%-8s %-11s %-8s %-7s %-6s" % ("spgl1", "‖f‖₁ (nobox)", "ms", "res/η", "min f")
    print(hdr)
    speedups = {s: [] for s in solvers}
    speedups_model = {s: [] for s in solvers}
    for inst in insts:
        go_ms = 1000 * inst["go_seconds"]
        row = "%-22s %-10s %-12s %-9.3f %-9s | " % (inst["name"], inst["go_status"], fmt(inst["go_obj"]), go_ms,
                                                   "%s+%.1f" % (inst["go_form"][:5], 1000 * inst["go_model_seconds"]))
        for s in solvers:
            best = None
            for rep in range(3):  # best of 3 wall times
                r = cvx(inst, s)
                if best is None or r["wall"] < best["wall"]:
                    best = r
            sp = best["wall"] * 1000 / go_ms
            spm = best["wall"] / (inst["go_seconds"] + inst["go_model_seconds"])
            speedups[s].append(sp)
            speedups_model[s].append(spm)
            row += "%-12s %-12s %-9.1f %-9s %-8.0f %-8.1f | " % (best["status"][:12], fmt(best["obj"]), 1000 * best["wall"],
                                                                  fmt(None if best["solve"] is None else 1000 * best["solve"], ".1f"), sp, spm)
        r = spgl1_run(inst)
        row += "%-8s %-11s %-8.1f %-7s %-6s" % (r["status"], fmt(r["obj"]), 1000 * r["wall"], fmt(r.get("res_over_eta"), ".4f"), fmt(r.get("min"), ".2g"))
        print(row)
    for s in solvers:
        v = speedups[s]
        w = speedups_model[s]
        print("speed-up vs CVXPY+%s (wall): solve only min %.0f×, median %.0f×; including Go's model construction min %.1f×, median %.1f×"
              % (s, min(v), float(np.median(v)), min(w), float(np.median(w))))


if __name__ == "__main__":
    main()
