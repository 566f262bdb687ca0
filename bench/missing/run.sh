#!/usr/bin/env bash
# plan --local --missing's forecast beside locate's measured rate on local
# releases with that fraction of sensors missing (issue 71, item 5):
#
#   bash bench/missing/run.sh [GRAPH] [EPSILON] [FRACTIONS] [TRIALS]
#
# defaults: gt:power (scripts/fetch-datasets.sh; GRAPHCLOAK_DATASETS names
# the directory), ε = 32, fractions 0.1,0.5, 600 trials each. Both use
# Leiden's communities (seed 1) from one file and τ = 1; the measurement
# takes plan's σ and draws its own sources, missing sensors and noise
# (bench/missing/main.go). Prints one JSON line per fraction and side.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
graph="${1:-gt:power}" eps="${2:-32}" fractions="${3:-0.1,0.5}" trials="${4:-600}"
cd "$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/graphcloak" ./cmd/graphcloak
go build -o "$tmp/missing" ./bench/missing
"$tmp/missing" -graph "$graph" -write-communities "$tmp/communities.csv"
sigma=""
for q in ${fractions//,/ }; do
	"$tmp/graphcloak" plan --graph "$graph" --local --missing "$q" --tau 1 --epsilon "$eps" --trials "$trials" \
		--communities "file:$tmp/communities.csv" --cache-dir none -q -o json >"$tmp/plan.json"
	python3 - "$tmp/plan.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["plan"]["forecasts"][0]
print(json.dumps({"side": "plan", "missingFraction": f.get("missingFraction", 0), "epsilon": f["epsilon"], "sigma": f["sigma"],
                  "trials": f["trials"], "rate": f["communityAccuracy"], "low": f["low"], "high": f["high"]}))
PY
	sigma="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan"]["forecasts"][0]["sigma"])' "$tmp/plan.json")"
	"$tmp/missing" -graph "$graph" -communities "$tmp/communities.csv" -tau 1 -sigma "$sigma" -missing "$q" -trials "$trials"
done
