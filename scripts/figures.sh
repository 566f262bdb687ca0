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

# The demo's graph view: the paper's SBM, nodes coloured by the posterior.
gc demo --plot docs/img/demo.png >/dev/null 2>&1
# Five planted communities of different sizes.
gc demo --graph "sbm:sizes=100x80x60x40x30,pin=0.1,pout=0.003" --tau 1 --epsilon 4 --plot docs/img/sbm5.png >/dev/null 2>&1
# Above 5 000 nodes: one disc per community.
gc demo --graph "sbm:sizes=3000x2000x1500,pin=0.003,pout=0.0001" --tau 1 --epsilon 4 --plot docs/img/communities.png >/dev/null 2>&1
echo "figures: docs/img/demo.png docs/img/sbm5.png docs/img/communities.png" >&2

# Experiment summaries over all trials: rates against ε with Wilson intervals; the line setting.
gc experiment graph --epsilon 0.5,1,2,4,8 --tau 1,2 --trials 200 --plot docs/img/experiment-graph.png >/dev/null 2>&1
gc experiment line --trials 50 --plot docs/img/experiment-line.png >/dev/null 2>&1
echo "figures: docs/img/experiment-graph.png docs/img/experiment-line.png" >&2

# The runs history (needs a Neo4j: scripts/test.sh starts one): eight hourly
# releases whose source moves between communities, localised, then runs --plot;
# and serve's operator page as headless Chromium shows it (scripts/chromium.sh).
GRAPHCLOAK_FIGURES_DIR="$PWD/docs/img" GRAPHCLOAK_TEST_FLAGS="-run TestHistoryFigure|TestServeOperatorPageInBrowser" bash scripts/test.sh ./integration/ >/dev/null 2>&1 &&
	echo "figures: docs/img/history.png docs/img/serve-page.png" >&2 || echo "figures: history.png, serve-page.png not regenerated (Neo4j test run failed)" >&2
