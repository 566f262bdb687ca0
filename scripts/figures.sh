#!/usr/bin/env bash
# Regenerate the pictures README.md shows (docs/img/*.png) from the code.
#
#   bash scripts/figures.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p docs/img
gc() { go run ./cmd/graphcloak "$@"; }

# The paper's Figure 2: Δ2 of the 1-D heat kernel against m, n and T.
gc experiment sensitivity --line --plot docs/img/figure2.png >/dev/null
echo "figures: docs/img/figure2.png" >&2
