#!/usr/bin/env bash
# Issue 70 goal (b): the Gaussian-noise oracle of the private answer at the
# full count — 2 000 fresh noise draws per source on every graph (karate at
# ε 1 and 4, PA-300, SBM-200, hub+arms+path; ν 0.5 % and 2 % at 1, 1.1 and
# 1.5× the stated rms). The unit test runs 2 000 on karate and 150 on the
# larger graphs. Usage: scripts/noise_oracle.sh [draws]
set -euo pipefail
cd "$(dirname "$0")/.."
GRAPHCLOAK_NOISE_DRAWS="${1:-2000}" go test ./answer -run 'TestAnswerGaussianNoiseOracle$' -count=1 -v -timeout 3h |
	grep -E 'gaussnoise_oracle_test|^(--- |ok|FAIL|PASS)'
