#!/usr/bin/env bash
# locate's accuracy on an LFR graph of 10⁵ nodes (issue 79, item 4): the
# rate at which graphcloak.Locate ranks the source's planted community
# first over TRIALS unit sources at random nodes, readings exp(−τL)·e_s
# plus N(0, σ²) noise, with every sensor reporting and with 10% missing
# (one set of missing sensors per fraction: bench/missing -shared, whose
# ranking is Locate's and is checked against one graphcloak.Locate), and
# the CPU seconds of that one full locate (the machine may be shared, so
# quote CPU, not wall):
#
#   bash bench/missing/lfr.sh [SIGMAS] [TRIALS] [N] [AVG_DEG MAX_DEG] [TAU]
#
# defaults: σ = 1e-4 and 1e-3, 30 trials, N = 100000, degrees 15/300, τ = 1 (the
# LFR family of the 2·10⁴ benchmarks; networkit's LFRGenerator through
# bench/utility/lfr.py, μ = 0.3, seed 1, installed with pip in a venv
# under the run's temporary directory). bench/missing/RESULTS.md says why
# σ = 1e-3 is at what the readings can resolve at τ = 1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
sigmas="${1:-1e-4,1e-3}" trials="${2:-30}" n="${3:-100000}" avg="${4:-15}" mx="${5:-300}" tau="${6:-1}"
cd "$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet networkit
"$tmp/venv/bin/python" bench/utility/lfr.py "$n" 0.3 1 "$tmp/lfr.csv" "$tmp/communities.csv" "$avg" "$mx"
go build -o "$tmp/missing" ./bench/missing
for s in ${sigmas//,/ }; do
	/usr/bin/time -f "σ=$s: %U s user, %S s system, peak RSS %M KiB" \
		"$tmp/missing" -shared -graph "file:$tmp/lfr.csv" -communities "$tmp/communities.csv" -tau "$tau" -sigma "$s" \
		-missing 0,0.1 -trials "$trials" 2> >(grep -v '^trial' >&2)
done
