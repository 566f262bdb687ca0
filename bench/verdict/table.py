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
