#!/usr/bin/env bash
# plan's forecast verdict rate against locate's verdicts, through the CLI
# (issue 73's goal): plan forecasts, for sources of MASS units at ε, the
# share of releases locate calls an answer (its mass curve's verdictRate);
# then SOURCES releases of planted sources of MASS units at uniformly drawn
# nodes (bench/verdict/readings: exp(−τL)·(MASS·e_s), noiseless readings)
# are released and located, one `graphcloak release` and one
# `graphcloak locate` each, with default flags, and their verdicts counted.
#
#   GRAPHCLOAK_DATASETS=/work/datasets bash bench/verdict/cli.sh [GRAPH] [EPSILON] [MASS] [SOURCES] [SEED]
#
# defaults: gt:power, ε = 4, 10 units, 30 sources, seed 73. The commands
# share a fresh work store (XDG_CACHE_HOME in a temporary directory), so Δ2
# is computed once (by plan). Prints plan's rate, locate's verdicts and
# rankings, and one JSON line with both.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
graph="${1:-gt:power}" eps="${2:-4}" mass="${3:-10}" sources="${4:-30}" seed="${5:-73}"
cd "$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/graphcloak" ./cmd/graphcloak
go build -o "$tmp/readings" ./bench/verdict/readings
export XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/config"
gc="$tmp/graphcloak"
start=$SECONDS

"$gc" plan --graph "$graph" --epsilon "$eps" --modes per-node -q -o json >"$tmp/plan.json"
"$gc" communities --graph "$graph" --out "$tmp/communities.csv" -q >/dev/null
"$tmp/readings" -graph "$graph" -mass "$mass" -sources "$sources" -seed "$seed" -out "$tmp"
"$gc" budget --init --ledger "$tmp/ledger.json" --epsilon-total 100000 --delta-total 0.01 -q >/dev/null
for ((k = 0; k < sources; k++)); do
	"$gc" release --graph "$graph" --epsilon "$eps" --values "$tmp/r$k.csv" --out "$tmp/rel$k.json" \
		--ledger "$tmp/ledger.json" --epoch "e$k" -q -o json >"$tmp/release$k.json"
	"$gc" locate --graph "$graph" --release "$tmp/rel$k.json" -q -o json >"$tmp/locate$k.json"
done
python3 - "$tmp" "$sources" "$eps" "$mass" "$graph" "$((SECONDS - start))" <<'PY'
import csv, json, sys
tmp, n, eps, mass, graph, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], int(sys.argv[6])

def walk(v):
    if isinstance(v, dict):
        yield v
        for x in v.values():
            yield from walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from walk(x)

plan = json.load(open(f"{tmp}/plan.json"))
rate = None
for f in walk(plan):
    if f.get("mode") == "per-node" and f.get("epsilon") == eps and not f.get("smooth"):
        for k, v in f.items():
            if isinstance(v, list) and v and isinstance(v[0], dict) and "verdictRate" in v[0] and "mass" in v[0]:
                for p in v:
                    if abs(p["mass"] - mass) < 1e-9:
                        rate = p["verdictRate"]
        if rate is not None:
            break
comm = {r[0]: r[1] for r in csv.reader(open(f"{tmp}/communities.csv")) if r and r[0] != "node"}
src = {r["k"]: r["node"] for r in csv.DictReader(open(f"{tmp}/sources.csv"))}
answers = right = 0
verdicts = []
for k in range(n):
    loc = json.load(open(f"{tmp}/locate{k}.json"))
    verdicts.append(0 if loc.get("verdict", {}).get("noiseDominated", True) else 1)
    answers += verdicts[-1]
    top = [c for c in loc["report"]["communities"] if c.get("rank") == 1]
    if top and top[0]["name"] == comm.get(src[str(k)]):
        right += 1
print(f"plan: verdict rate {rate} at {mass:g} units, ε = {eps:g} ({graph})")
print(f"locate: {answers}/{n} called an answer ({answers / n:.3f}); top community right {right}/{n}")
# Consecutive batches of 30 sources are independent 30-source runs (the
# goal's size): their rates show the sampling spread a single run has.
batches = [sum(verdicts[i:i + 30]) / 30 for i in range(0, n - n % 30, 30)] if n >= 60 else []
for i, b in enumerate(batches):
    print(f"  sources {30 * i}–{30 * i + 29}: {b:.3f}" + ("" if rate is None else f" ({100 * abs(rate - b):.1f} points)"))
print(json.dumps({"graph": graph, "epsilon": eps, "mass": mass, "sources": n, "planVerdictRate": rate,
                  "locateAnswers": answers, "locateRate": answers / n, "rankedRight": right,
                  "points": None if rate is None else round(100 * abs(rate - answers / n), 1), "seconds": secs,
                  "batchRates": batches, "verdicts": verdicts}))
PY
