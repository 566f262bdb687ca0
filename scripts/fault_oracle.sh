#!/usr/bin/env bash
# Issue 77 items 2–3: the sensor-fault oracle of the private answer at the
# full count. The scope's model is Gaussian noise of rms 0.5 % (τ = 1);
# the readings get one fault each — a sensor stuck at 0 or saturated at
# full scale (every sensor in turn), an 8-bit ADC, a 1 % gain error and
# Student-t(3) noise, at 1×, 1.5× and 3× — and every edge's loss is
# bounded by the coupling of common noise (answer.TestSensorFaultOracle)
# for --on-mismatch nearest at --alpha A, beside the default policy's
# refusal rates. The unit test runs karate with every 7th sensor.
# Usage: scripts/fault_oracle.sh [karate|pa300] [alpha] [draws] [every]
set -euo pipefail
cd "$(dirname "$0")/.."
graph="${1:-karate}"
GRAPHCLOAK_FAULT_GRAPH="$graph" GRAPHCLOAK_FAULT_ALPHA="${2:-3}" GRAPHCLOAK_FAULT_DRAWS="${3:-300}" GRAPHCLOAK_FAULT_EVERY="${4:-1}" \
	go test ./answer -run 'TestSensorFaultOracle$' -count=1 -v -timeout 3h |
	grep -E 'imperfection_oracle_test|^(--- |ok|FAIL|PASS)'
