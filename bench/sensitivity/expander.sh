#!/usr/bin/env bash
# Why preferential-attachment graphs get no exact Δ2 (the PA rows of docs/results.md):
# on pa:n=N,m=10 at τ = 1, the exact Δ2 against what local information and a
# proven spectral gap could prove, and the cost of proving that gap by an
# inertia count (expander.py). Never called from tests.
#
# Usage: bench/sensitivity/expander.sh [N ...]   (default 3000 10000 20000;
#   the first graph is solved exactly by both graphcloak and numpy)
set -euo pipefail
source "$(dirname "$0")/venv.sh"
sizes=("$@")
((${#sizes[@]})) || sizes=(3000 10000 20000)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
dirs=() budget=0
for n in "${sizes[@]}"; do
	mkdir "$tmp/$n"
	(cd "$root" && go run ./bench/sensitivity -graph "pa:n=$n,m=10" -tau 1 -budget "$budget" -dir "$tmp/$n")
	dirs+=("$tmp/$n") budget=1s
done
"$venv/bin/python" "$root/bench/sensitivity/expander.py" "${dirs[@]}"
