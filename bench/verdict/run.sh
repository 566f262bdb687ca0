#!/usr/bin/env bash
# The verdict table of docs/guarantee.md: how often locate's verdict
# (forecast.Judge — the evidence test, the source mass the release
# carries and the forecast at that mass) is wrong on planted releases of
# known strength, across source masses 0.1–1000 units and ε 0.25–8, on an
# SBM, an LFR benchmark (networkit, in a venv under OUTDIR) and a random
# geometric graph. Not a timed test: a measurement.
#
#   bash bench/verdict/run.sh [OUTDIR]      (default .cache/verdict)
#
# BENCH_RELEASES planted releases per (graph, ε, mass) (default 10),
# BENCH_TRUTH_TRIALS trials measuring each mass's true rate (default 400),
# BENCH_GRAPHS restricts the graphs ("sbm lfr rgg"). About 10 min on 2 shared cores;
# prints the table of docs/guarantee.md (between its verdict-table markers),
# per-graph totals and the worst row and cell.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/.cache/verdict}"
mkdir -p "$out"
venv="$root/.cache/utility/venv"
if [[ ! -x "$venv/bin/python" ]]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q "networkit==11.*"
fi
cd "$root"
go build -o "$out/verdict" ./bench/verdict
releases="${BENCH_RELEASES:-10}"
for name in ${BENCH_GRAPHS:-sbm lfr rgg}; do
	case "$name" in
	sbm) args=(-graph "sbm:sizes=50x50x50x50,pin=0.2,pout=0.01,seed=2") ;;
	lfr)
		[[ -s "$out/lfr500.csv" ]] || "$venv/bin/python" bench/utility/lfr.py 500 0.2 1 "$out/lfr500.csv" "$out/lfr500.comm.csv" 10 40
		args=(-graph "file:$out/lfr500.csv" -communities "$out/lfr500.comm.csv")
		;;
	rgg) args=(-graph "rgg:n=300,radius=0.12,seed=1") ;;
	*) echo "unknown graph $name" >&2; exit 2 ;;
	esac
	"$out/verdict" "${args[@]}" -name "$name" -tau 1 -epsilon 0.25,0.5,1,2,4,8 -releases "$releases" -truth-trials "${BENCH_TRUTH_TRIALS:-400}" >"$out/$name.jsonl"
done
python3 bench/verdict/table.py "$out"/*.jsonl
