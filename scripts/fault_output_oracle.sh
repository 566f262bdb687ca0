#!/usr/bin/env bash
# Issue 77 item 3: the output oracle of the private answer under sensor
# imperfections (answer.TestFaultOutputOracle), as docs/guarantee.md's
# tables. Every edge of the graph, the scope's default model (Gaussian
# noise of rms 0.5 %, τ = 1, drift allowance "any"), each imperfection at
# 1×, 1.5× and 3× (sizedFaults), ε = 1 and 4: one answer drawn per source
# and draw, every output counted (the refusal one of them), and
# P_s(o) ≤ e^ε·P_t(o) + δ tested on every edge both ways with
# Clopper–Pearson intervals (Bonferroni at 10⁻³ over every test), beside
# the exact coupled loss between the two centres of each draw, for the
# default and for the one-hop allowance it replaced.
# Usage: scripts/fault_output_oracle.sh karate|pa300|lfr2k DRAWS [EVERY] [SCALED_AT_ONE_SENSOR=1]
# lfr2k is bench/utility/lfr.py's 2 000-node LFR graph (μ = 0.3, seed 1,
# mean degree 10, max 50; networkit in a venv under .cache/fault).
# The table goes to standard output; the test's log to .cache/fault/NAME.log.
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:-karate}" draws="${2:-300}" every="${3:-}" scaled="${4:-}"
out=.cache/fault
mkdir -p "$out"
graph="$name"
if [[ "$name" == lfr2k ]]; then
	[[ -x "$out/venv/bin/python" ]] || { python3 -m venv "$out/venv" && "$out/venv/bin/pip" install -q "networkit==11.*"; }
	[[ -s "$out/lfr2k.csv" ]] || "$out/venv/bin/python" bench/utility/lfr.py 2000 0.3 1 "$out/lfr2k.csv" "$out/lfr2k.comm.csv" 10 50
	graph="file:$out/lfr2k.csv"
fi
GRAPHCLOAK_FAULT_GRAPH="$graph" GRAPHCLOAK_FAULT_DRAWS="$draws" GRAPHCLOAK_FAULT_EVERY="$every" GRAPHCLOAK_FAULT_SCALED_AT="$scaled" \
	go test ./answer -run 'TestFaultOutputOracle$' -count=1 -v -timeout 6h >"$out/$name.log" 2>&1 || true
scripts/fault_output_table.awk "$out/$name.log"
