#!/usr/bin/env bash
# The utility table of docs/guarantee.md and docs/results.md: for each graph, τ and ε,
# the right-community rate of the per-node release and of the private answer
# (forecast, and an independent measurement with another seed), the chance
# level and the (ε, δ)-DP ceiling.
#
#   bash bench/utility/run.sh [OUTDIR]      (default .cache/utility)
#
# Graphs: LFR benchmarks made by networkit's LFRGenerator (installed into a
# venv under OUTDIR; 2·10⁴ and 10⁵ nodes, mixing 0.3 and 0.4, power-law
# degrees) and random geometric sensor graphs (rgg:, 2·10⁴ and 10⁵ nodes),
# τ ∈ {0.3, 1, 3}, ε ∈ {0.5, 1, 2, 4, 8}, δ = 1e-6. On the 10⁵-node graphs the
# per-node release runs at τ = 1 only (each τ needs its own Δ2, and its
# forecast simulates the full recovery: about 10 min a row on 2 cores);
# Δ2 there is given BENCH_DELTA2_BUDGET (default 300s) and then is a proven
# upper bound, as a release under that --time-budget would use.
# BENCH_GRAPHS restricts the graphs (e.g. "lfr20k-0.4 rgg20k");
# BENCH_PER_NODE=false leaves the per-node release out (private answers and
# the ceiling only: minutes instead of hours); BENCH_TAUS the τ values
# (default 0.3,1,3).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/.cache/utility}"
mkdir -p "$out"
venv="$out/venv"
if [[ ! -x "$venv/bin/python" ]]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q "networkit==11.*"
fi
cd "$root"
go build -o "$out/utility" ./bench/utility
budget="${BENCH_DELTA2_BUDGET:-300s}"
graphs="${BENCH_GRAPHS:-lfr20k-0.3 lfr20k-0.4 rgg20k lfr100k-0.3 lfr100k-0.4 rgg100k}"
for name in $graphs; do
	args=()
	case "$name" in
	lfr20k-*|lfr100k-*)
		n=20000; [[ "$name" == lfr100k-* ]] && n=100000
		mu="${name##*-}"
		[[ -s "$out/$name.csv" ]] || "$venv/bin/python" bench/utility/lfr.py "$n" "$mu" 1 "$out/$name.csv" "$out/$name.comm.csv"
		args=(-graph "file:$out/$name.csv" -communities "$out/$name.comm.csv")
		;;
	rgg20k) args=(-graph "rgg:n=20000,radius=0.02,seed=1") ;;
	rgg100k) args=(-graph "rgg:n=100000,radius=0.009,seed=1") ;;
	*) echo "unknown graph $name" >&2; exit 2 ;;
	esac
	[[ "$name" == *100k* ]] && args+=(-per-node-tau 1)
	"$out/utility" "${args[@]}" -per-node="${BENCH_PER_NODE:-true}" -name "$name" -tau "${BENCH_TAUS:-0.3,1,3}" -epsilon 0.5,1,2,4,8 -delta 1e-6 \
		-trials 100 -measure-trials "${BENCH_MEASURE_TRIALS:-200}" -delta2-budget "$budget" >"$out/$name.jsonl"
done
python3 bench/utility/table.py "$out"/*.jsonl
