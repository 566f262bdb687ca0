#!/usr/bin/env bash
# Certified Δ2 at scale, side by side with the naive peer (scipy
# expm_multiply on every edge difference, timed on a sample of edges and
# extrapolated). Real graphs come from scripts/fetch-datasets.sh.
#
# Usage: bench/sensitivity/run.sh [-graph SPEC] [-tau T] [-budget D] [-sample S]
#   default: the rows of docs/results.md (AS graph at τ = 0.1, 1, 10; PA and RGG 10^5).
# Uses the venv of venv.sh (numpy, scipy).
# Never called from tests.
set -euo pipefail
source "$(dirname "$0")/venv.sh"
sample=20
graph="" tau="" budget=0
while (($#)); do
	case "$1" in
	-graph) graph="$2" ;;
	-tau) tau="$2" ;;
	-budget) budget="$2" ;;
	-sample) sample="$2" ;;
	*) echo "unknown flag $1" >&2; exit 2 ;;
	esac
	shift 2
done
rows=()
if [[ -n "$graph" ]]; then
	rows=("$graph ${tau:-1}")
else
	rows=("gt:as-22july06 0.1" "gt:as-22july06 1" "gt:as-22july06 10"
		"pa:n=100000,m=10 1" "rgg:n=100000,radius=0.0080,seed=1 1")
fi
uptime
for row in "${rows[@]}"; do
	read -r g t <<<"$row"
	tmp="$(mktemp -d)"
	(cd "$root" && go run ./bench/sensitivity -graph "$g" -tau "$t" -budget "$budget" -dir "$tmp")
	"$venv/bin/python" "$root/bench/sensitivity/scipy_peer.py" "$tmp" "$sample"
	rm -rf "$tmp"
	echo
done
