#!/usr/bin/env bash
# Soak test of graphcloak serve: 200 slots of release → locate every 2 s on
# a 5 000-node graph in a real Neo4j (started here from Maven, as the test
# suite does; or NEO4J_URI/NEO4J_PASSWORD of your own), reporting
# goroutines, open descriptors, sockets and resident memory after the first
# slot and before the last. Extra arguments go to bench/soak (-runs, -nodes,
# -rels, -every).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bin="$(mktemp -d)/graphcloak"
go build -o "$bin" ./cmd/graphcloak
if [[ -z "${NEO4J_URI:-}" ]]; then
	dir=".neo4j/soak-$$"
	trap 'scripts/neo4j.sh stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
	eval "$(scripts/neo4j.sh start "$dir" | tail -n1)"
	export NEO4J_URI NEO4J_PASSWORD="${NEO4J_PASSWORD:-graphcloak-test}"
fi
go run ./bench/soak -bin "$bin" "$@"
