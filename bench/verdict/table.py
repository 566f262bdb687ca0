"""The verdict table: per graph and ε, the planted releases whose verdict was wrong, by source mass.

    python3 table.py FILE.jsonl ...

A cell reads wrong/releases; its truth (κ = (r − g)/(1 − g) of releases of that mass, measured
independently) is marked n (noise: κ < 0.05), a (answer: κ ≥ 0.5) or · (between: either verdict
is right)."""
import json
import sys

rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.startswith("{")]
masses = sorted({r["mass"] for r in rows})
print("| graph | ε | " + " | ".join(f"{m:g}" for m in masses) + " | wrong |")
print("|---|---|" + "---|" * len(masses) + "---|")
total = wrong = 0
for g in dict.fromkeys(r["graph"] for r in rows):
    for eps in sorted({r["epsilon"] for r in rows if r["graph"] == g}):
        cells = {r["mass"]: r for r in rows if r["graph"] == g and r["epsilon"] == eps}
        w = sum(c["wrong"] for c in cells.values())
        n = sum(c["releases"] for c in cells.values())
        total, wrong = total + n, wrong + w
        mark = {"noise": "n", "answer": "a", "between": "·"}
        out = [f"{cells[m]['wrong']}/{cells[m]['releases']} {mark[cells[m]['truth']]}" if m in cells else "" for m in masses]
        print(f"| {g} ({cells[masses[0]]['nodes']} nodes, {cells[masses[0]]['communities']} communities) | {eps:g} | " + " | ".join(out) + f" | {w}/{n} |")
print(f"\nwrong on {wrong} of {total} planted releases ({100 * wrong / max(total, 1):.1f}%)")
# Per graph, and the worst row (graph, ε) and cell (graph, ε, mass).
per = {}
worst_row = worst_cell = None
for g in dict.fromkeys(r["graph"] for r in rows):
    w = sum(r["wrong"] for r in rows if r["graph"] == g)
    n = sum(r["releases"] for r in rows if r["graph"] == g)
    per[g] = f"{g} {w}/{n} ({100 * w / max(n, 1):.1f}%)"
    for eps in sorted({r["epsilon"] for r in rows if r["graph"] == g}):
        cells = [r for r in rows if r["graph"] == g and r["epsilon"] == eps]
        rw, rn = sum(c["wrong"] for c in cells), sum(c["releases"] for c in cells)
        if worst_row is None or rw / rn > worst_row[0]:
            worst_row = (rw / rn, f"{g} at ε = {eps:g}: {rw}/{rn} ({100 * rw / rn:.1f}%)")
        for c in cells:
            if worst_cell is None or c["wrong"] / c["releases"] > worst_cell[0]:
                worst_cell = (c["wrong"] / c["releases"], f"{g} at ε = {eps:g}, {c['mass']:g} units: {c['wrong']}/{c['releases']} (truth {c['truth']}, κ = {c['kappa']:.2f}, mean mass lower bound {c['massLowMean']:.3g})")
print("per graph: " + ", ".join(per.values()))
if worst_row:
    print(f"worst row: {worst_row[1]}; worst cell: {worst_cell[1]}")
