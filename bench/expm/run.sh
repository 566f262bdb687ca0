#!/usr/bin/env bash
# Speed comparison: exp(−τL)v with graphcloak's certified Chebyshev action
# versus scipy.sparse.linalg.expm_multiply on the same random graph
# (n = 1e5, average degree 10, τ = 2, tol = 1e−10 by default).
#
# Usage: bench/expm/run.sh [-n N] [-deg D] [-tau T] [-tol E] [-runs R] [-workers W]
# Creates a venv under .cache/bench-venv (gitignored) with numpy and scipy.
# Never called from tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$root/.cache/bench-venv"
if [[ ! -x "$venv/bin/python" ]]; then
	python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check numpy scipy
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
runs=5
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	[[ "${args[i]}" == "-runs" ]] && runs="${args[i + 1]}"
done
(cd "$root" && go run ./bench/expm -dir "$tmp" "$@")
"$venv/bin/python" "$root/bench/expm/scipy_expm.py" "$tmp" "$runs"
