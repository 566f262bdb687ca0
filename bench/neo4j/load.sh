#!/usr/bin/env bash
# load.sh: graphcloak load beside neo4j-admin database import and LOAD CSV,
# 10^6 relationships into an empty database, then the same files again
# (issue 49). Everything comes from Maven Central and this repository:
#
#   bash bench/neo4j/load.sh [WORKDIR]        (default .neo4j/loadbench, emptied first)
#
# NODES (default 100000), RELS (default 1000000) and SEED (default 1) size
# the graph: RELS distinct undirected edges between uniform random nodes,
# integer keys, a weight in [0.5, 2) each, written by Python into
# WORKDIR/csv (edges.csv for graphcloak and LOAD CSV; nodes.csv and rels.csv
# without headers for the importer; nothing is committed).
#
# Three fresh servers (scripts/neo4j.sh, Neo4j 5.26 harness, heap 2 GiB,
# page cache 256 MiB), one per loader, each on an empty database:
#
#  1. neo4j-admin database import full — the importer is on the harness's
#     own classpath (org.neo4j:neo4j-import-tool, run through
#     org.neo4j.cli.AdminTool, the class behind neo4j-admin): it writes the
#     store offline into WORKDIR/admin/db/data, then the server starts on it
#     and the key's uniqueness constraint is created (timed apart). Its
#     "reload" is the only one Community has: import full
#     --overwrite-destination, offline, rebuilding the store from the files.
#  2. graphcloak load --edges edges.csv … (constraint, MERGE/CREATE in
#     batches), then the same command again.
#  3. LOAD CSV from a loopback HTTP server (python3 -m http.server on
#     127.0.0.1): constraint, a node pass (MERGE both ends) and a
#     relationship pass (MATCH both ends, CREATE), CALL { … } IN
#     TRANSACTIONS OF 10000 ROWS; the reload is one pass MERGEing both ends
#     and the undirected relationship, SET w.
#
# Every time is wall-clock seconds, printed as "TIME <what> <seconds>", and
# the counts after each step as "COUNT …". Server starts are not timed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${1:-$root/.neo4j/loadbench}"
nodes="${NODES:-100000}" rels="${RELS:-1000000}" seed="${SEED:-1}"
export NEO4J_PASSWORD="${NEO4J_PASSWORD:-graphcloak-test}"
say() { printf 'load.sh: %s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

mkdir -p "$work"
work="$(cd "$work" && pwd)"
for d in admin gc lc; do
	bash "$root/scripts/neo4j.sh" stop "$work/$d" >/dev/null 2>&1 || true
done
rm -rf "$work/admin" "$work/gc" "$work/lc" "$work/csv"
mkdir -p "$work/csv" "$work/bin"
csv="$work/csv"

say "building graphcloak and the bench's Cypher runner"
(cd "$root" && go build -o "$work/bin/graphcloak" ./cmd/graphcloak && go build -o "$work/bin/bn" ./bench/neo4j)
gc="$work/bin/graphcloak" bn="$work/bin/bn"

say "writing $rels edges between $nodes nodes (seed $seed)"
python3 - "$csv" "$nodes" "$rels" "$seed" <<'EOF'
import random, sys
d, n, m, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
seen, used = set(), set()
with open(d + "/edges.csv", "w") as f, open(d + "/rels.csv", "w") as g:
    f.write("source,target,w\n")
    while len(seen) < m:
        u, v = rng.randrange(n), rng.randrange(n)
        if u == v or (min(u, v), max(u, v)) in seen:
            continue
        seen.add((min(u, v), max(u, v)))
        used.update((u, v))
        line = "%d,%d,%.6f\n" % (u, v, 0.5 + 1.5 * rng.random())
        f.write(line)
        g.write(line)
with open(d + "/nodes.csv", "w") as f:
    f.writelines("%d\n" % u for u in sorted(used))
EOF
printf 'k:ID\n' >"$csv/nodes-header.csv"
printf ':START_ID,:END_ID,w:float\n' >"$csv/rels-header.csv"
say "$(wc -l <"$csv/nodes.csv") nodes, $(($(wc -l <"$csv/edges.csv") - 1)) relationships, $(du -h "$csv/edges.csv" | cut -f1) of edges.csv"

count() {
	"$bn" -exec "MATCH (n:L) RETURN count(n)" "MATCH ()-[r:T]->() RETURN count(r), sum(r.w)" |
		awk -F'\t' -v what="$1" '{ printf "%s ", $2 } END { print "" }' | sed "s/^/COUNT $1 nodes, [relationships weight-sum]: /"
}
start() { # DIR: start a server there and take its connection
	eval "$(bash "$root/scripts/neo4j.sh" start "$1" 0)"
	export NEO4J_URI NEO4J_USER NEO4J_PASSWORD
}
stop() { bash "$root/scripts/neo4j.sh" stop "$1"; }
http=""
cleanup() {
	[[ -z "$http" ]] || kill "$http" 2>/dev/null || true
	for d in admin gc lc; do
		[[ ! -f "$work/$d/neo4j.pid" ]] || stop "$work/$d" 2>/dev/null || true
	done
}
trap cleanup EXIT
constraint="CREATE CONSTRAINT IF NOT EXISTS FOR (n:L) REQUIRE n.k IS UNIQUE"

# 1. neo4j-admin database import full.
java="${GRAPHCLOAK_JAVA:-$(ls /usr/lib/jvm/java-17-openjdk*/bin/java 2>/dev/null | head -n1)}"
java="${java:-java}"
[[ -s "$root/integration/neo4j/cp.txt" ]] || { start "$work/cp-probe"; stop "$work/cp-probe"; }
mkdir -p "$work/admin/home/conf"
echo "server.directories.data=$work/admin/db/data" >"$work/admin/home/conf/neo4j.conf"
admin_import() {
	NEO4J_HOME="$work/admin/home" NEO4J_CONF="$work/admin/home/conf" "$java" -Xmx2g \
		-cp "$(cat "$root/integration/neo4j/cp.txt")" org.neo4j.cli.AdminTool database import full \
		--nodes=L="$csv/nodes-header.csv,$csv/nodes.csv" \
		--relationships=T="$csv/rels-header.csv,$csv/rels.csv" \
		--id-type=integer --report-file="$work/admin/import.report" "$@" neo4j >"$work/admin/import.log" 2>&1 ||
		{ tail -n 30 "$work/admin/import.log" >&2; return 1; }
	grep -E 'IMPORT DONE|Peak memory' "$work/admin/import.log" >&2
}
say "neo4j-admin database import full"
t=$(now); admin_import; echo "TIME admin-import $(since "$t")"
start "$work/admin"
t=$(now); "$bn" -exec "$constraint" "CALL db.awaitIndexes(3600)" >/dev/null; echo "TIME admin-constraint $(since "$t")"
count admin
stop "$work/admin"
say "neo4j-admin database import full --overwrite-destination (the reload)"
t=$(now); admin_import --overwrite-destination; echo "TIME admin-reimport $(since "$t")"
start "$work/admin"
t=$(now); "$bn" -exec "$constraint" "CALL db.awaitIndexes(3600)" >/dev/null; echo "TIME admin-reimport-constraint $(since "$t")"
count admin-reimport
stop "$work/admin"

# 2. graphcloak load.
start "$work/gc"
load=("$gc" load --edges "$csv/edges.csv" --node-labels L --relationship-types T --node-key-property k
	--relationship-weight-property w --uri "$NEO4J_URI" --user neo4j -o json)
say "graphcloak load (empty database)"
t=$(now); GRAPHCLOAK_NEO4J_PASSWORD="$NEO4J_PASSWORD" "${load[@]}" >"$work/gc/load1.json"; echo "TIME graphcloak-load $(since "$t")"
count graphcloak
say "graphcloak load (the same file again)"
t=$(now); GRAPHCLOAK_NEO4J_PASSWORD="$NEO4J_PASSWORD" "${load[@]}" >"$work/gc/load2.json"; echo "TIME graphcloak-reload $(since "$t")"
count graphcloak-reload
stop "$work/gc"

# 3. LOAD CSV from a loopback HTTP server.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$csv" >/dev/null 2>&1 &
http=$!
url="http://127.0.0.1:$port/edges.csv"
start "$work/lc"
say "LOAD CSV (empty database)"
t=$(now)
"$bn" -exec "$constraint" \
	"LOAD CSV WITH HEADERS FROM '$url' AS r CALL { WITH r MERGE (:L {k: toInteger(r.source)}) MERGE (:L {k: toInteger(r.target)}) } IN TRANSACTIONS OF 10000 ROWS" \
	"LOAD CSV WITH HEADERS FROM '$url' AS r CALL { WITH r MATCH (a:L {k: toInteger(r.source)}) MATCH (b:L {k: toInteger(r.target)}) CREATE (a)-[:T {w: toFloat(r.w)}]->(b) } IN TRANSACTIONS OF 10000 ROWS" |
	cut -c1-60 >&2
echo "TIME loadcsv-load $(since "$t")"
count loadcsv
say "LOAD CSV (the same file again)"
t=$(now)
"$bn" -exec "LOAD CSV WITH HEADERS FROM '$url' AS r CALL { WITH r MERGE (a:L {k: toInteger(r.source)}) MERGE (b:L {k: toInteger(r.target)}) MERGE (a)-[e:T]-(b) SET e.w = toFloat(r.w) } IN TRANSACTIONS OF 10000 ROWS" |
	cut -c1-60 >&2
echo "TIME loadcsv-reload $(since "$t")"
count loadcsv-reload
stop "$work/lc"
echo "LOADAVG $(cut -d' ' -f1-3 /proc/loadavg)"
