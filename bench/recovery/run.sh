#!/usr/bin/env bash
# Speed and quality comparison of graphcloak's recovery against CVXPY
# (Clarabel, ECOS) and spgl1 on identical BPDN instances.
#   bash bench/recovery/run.sh
# Creates .cache/bench-venv-recovery (gitignored) on first use.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.cache/bench-venv-recovery
OUT=.cache/recovery-bench-out
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q numpy scipy cvxpy clarabel ecos spgl1 || {
    echo "pip install failed (see above); the Go half still runs:" >&2
    go run ./bench/recovery -out "$OUT"
    exit 1
  }
fi
rm -rf "$OUT"
go run ./bench/recovery -out "$OUT" -trials "${TRIALS:-100}"
echo
"$VENV/bin/python" bench/recovery/compare.py "$OUT"
