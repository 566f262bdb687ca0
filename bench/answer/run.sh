#!/usr/bin/env bash
# The private answer's certificate and audit on an LFR graph (issue 47's
# speed goal): the certifier's pass over every node, the classes, and the
# audit of every edge at ε ∈ {2, 4, 8}, with each audit's accuracy (the
# chance the answer names the source's community, exact inside the model).
#
#   bash bench/answer/run.sh [N] [MU]       (default 20000 0.3)
#
# The graph is made by networkit's LFRGenerator (bench/utility/lfr.py, in the
# venv bench/utility/run.sh installs under .cache/utility). Wall and CPU time
# come from /usr/bin/time; the benchmark's own ns/op is the wall time of one
# model and three audits.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
n="${1:-20000}"
mu="${2:-0.3}"
out="$root/.cache/utility"
name="lfr$((n / 1000))k-$mu"
venv="$out/venv"
mkdir -p "$out"
if [[ ! -x "$venv/bin/python" ]]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q "networkit==11.*"
fi
[[ -s "$out/$name.csv" ]] || "$venv/bin/python" "$root/bench/utility/lfr.py" "$n" "$mu" 1 "$out/$name.csv" "$out/$name.comm.csv"
cd "$root"
go test -c -o "$out/answer.test" ./answer
GRAPHCLOAK_BENCH_GRAPH="$out/$name.csv" GRAPHCLOAK_BENCH_COMMUNITIES="$out/$name.comm.csv" \
	/usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M KiB" \
	"$out/answer.test" -test.run '^$' -test.bench BenchmarkAnswerAudit -test.benchtime 1x -test.timeout 0
