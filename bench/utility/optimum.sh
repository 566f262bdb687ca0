#!/usr/bin/env bash
# How far the private answer is from the best any (ε, δ)-DP mechanism can do,
# on LFR graphs small enough for the exact linear program (bench/utility/
# optimum.py): per ε, the exact optimum, the ceiling forecast.RoutedCeiling
# proves without solving it (disjoint pairs, stars, routed rows), and the accuracy of the
# mechanism privacy.CalibrateAnswer picks (exact, not simulated).
#
#   bash bench/utility/optimum.sh [OUTDIR]      (default .cache/utility)
#
# BENCH_OPTIMUM_SIZES: node counts (default "500 1000"; 1000 takes ~5 min per
# ε on 2 cores). Mixing 0.4, mean degree 12 (500) or 15, max degree 60 or 100.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/.cache/utility}"
mkdir -p "$out"
venv="$out/venv"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import networkit, scipy' 2>/dev/null; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q "networkit==11.*" "scipy>=1.11"
fi
cd "$root"
go build -o "$out/utility" ./bench/utility
eps="0.5 1 2 4"
printf '%-10s %5s %9s %8s %8s %9s %s\n' graph ε optimum ceiling answer 'ans÷opt' mechanism
for n in ${BENCH_OPTIMUM_SIZES:-500 1000}; do
	name="lfr$n-0.4"
	avg=15 mx=100
	[[ "$n" -le 500 ]] && avg=12 mx=60
	[[ -s "$out/$name.csv" ]] || "$venv/bin/python" bench/utility/lfr.py "$n" 0.4 1 "$out/$name.csv" "$out/$name.comm.csv" "$avg" "$mx"
	"$out/utility" -graph "file:$out/$name.csv" -communities "$out/$name.comm.csv" -ceiling-only -name "$name" \
		-epsilon "${eps// /,}" -delta 1e-6 2>/dev/null >"$out/$name.answer.jsonl"
	# shellcheck disable=SC2086
	"$venv/bin/python" bench/utility/optimum.py "$out/$name.csv" "$out/$name.comm.csv" 1e-6 $eps >"$out/$name.optimum.jsonl"
	"$venv/bin/python" - "$name" "$out/$name.answer.jsonl" "$out/$name.optimum.jsonl" <<'PY'
import json, sys
name, ans, opt = sys.argv[1], [json.loads(l) for l in open(sys.argv[2])], [json.loads(l) for l in open(sys.argv[3])]
for a, o in zip(ans, opt):
    print(f"{name:<10} {a['epsilon']:>5g} {o['optimum']:>8.1%} {a['ceiling']:>8.1%} {a['accuracy']:>8.1%} {a['accuracy'] / o['optimum']:>9.2f} {a['mechanism']}")
PY
done
