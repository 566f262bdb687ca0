#!/usr/bin/env bash
# Issue 77 items 2–3: the sensor-fault oracle of the private answer at the
# full count. The scope's model is Gaussian noise of rms 0.5 % (τ = 1);
# the readings get one fault each — a sensor stuck at 0 or saturated at
# full scale (every sensor in turn), an 8-bit ADC, a 1 % gain error and
# Student-t(3) noise, at 1×, 1.5× and 3× — and every edge's loss is
# bounded by the coupling of common noise (answer.TestSensorFaultOracle)
# for --on-mismatch nearest at --alpha A, beside the default policy's
# refusal rates. The unit test runs karate with every 7th sensor.
# lfr2k is an LFR graph of 2 000 nodes (networkit's LFRGenerator through
# bench/utility/lfr.py, μ = 0.3, seed 1, mean degree 10, max 50; a venv in
# .cache/fault), checked on a sample: every edge at a faulty sensor (every
# n/5-th) and EDGES uniform edges (default 10), nearest only.
# Usage: scripts/fault_oracle.sh [karate|pa300|lfr2k] [alpha] [draws] [every]
set -euo pipefail
cd "$(dirname "$0")/.."
graph="${1:-karate}"
every="${4:-1}"
if [[ "$graph" == lfr2k ]]; then
	out=.cache/fault
	mkdir -p "$out"
	[[ -x "$out/venv/bin/python" ]] || { python3 -m venv "$out/venv" && "$out/venv/bin/pip" install -q "networkit==11.*"; }
	[[ -s "$out/lfr2k.csv" ]] || "$out/venv/bin/python" bench/utility/lfr.py 2000 0.3 1 "$out/lfr2k.csv" "$out/lfr2k.comm.csv" 10 50
	graph="file:$out/lfr2k.csv"
	every="${4:-}" # empty: the test's n/5
	export GRAPHCLOAK_FAULT_EDGES="${EDGES:-10}" GRAPHCLOAK_FAULT_REFUSE=0
fi
GRAPHCLOAK_FAULT_GRAPH="$graph" GRAPHCLOAK_FAULT_ALPHA="${2:-3}" GRAPHCLOAK_FAULT_DRAWS="${3:-300}" GRAPHCLOAK_FAULT_EVERY="$every" \
	go test ./answer -run 'TestSensorFaultOracle$' -count=1 -v -timeout 3h |
	grep -E 'imperfection_oracle_test|^(--- |ok|FAIL|PASS)'
