#!/usr/bin/env bash
# Race release processes of the built binary on one epoch, RACES times
# (default 50) with RACERS processes each (default 6), against the Neo4j of
# $NEO4J_URI (eval "$(bash scripts/neo4j.sh start)"): every race must end
# with one charge, one publication and every process exiting 0 — never a
# false exit 7 (docs/scheduling.md). Prints the exit codes seen.
#
#   scripts/epochrace.sh [RACES] [RACERS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${NEO4J_URI:?start Neo4j first: eval \"\$(bash scripts/neo4j.sh start)\"}"
GRAPHCLOAK_EPOCH_RACES="${1:-50}" GRAPHCLOAK_EPOCH_RACERS="${2:-6}" \
	go test ./integration -run '^TestConcurrentEpochRaces$' -count=1 -v -timeout 120m 2>&1 |
	grep -E '^(--- |ok|FAIL|PASS)|epochrace_test.go'
