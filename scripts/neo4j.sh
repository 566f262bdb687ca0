#!/usr/bin/env bash
# Start or stop the Neo4j Community 5.26 test server (neo4j-harness from Maven
# Central, run by integration/neo4j/Launcher.java on OpenJDK 17). No Docker and
# no manual installs: only the machine's JDK 17 and Maven.
#
#   scripts/neo4j.sh start [DIR] [PORT]   start in the background, wait for Bolt,
#                                         print NEO4J_URI=bolt://127.0.0.1:PORT
#   scripts/neo4j.sh stop  [DIR]          stop the server started in DIR (by its PID)
#   scripts/neo4j.sh status [DIR]         print NEO4J_URI if it is running
#   scripts/neo4j.sh check                succeed when Java 17 and Maven are there
#
# DIR defaults to .neo4j/default (gitignored); it holds the pidfile, the log,
# the ready file and the database (DIR/db/data, kept across restarts).
# PORT defaults to $NEO4J_PORT, else 0 (a free port chosen by the server).
# Environment: NEO4J_PASSWORD (default graphcloak-test, >= 8 characters),
# GRAPHCLOAK_JAVA (a java 17 binary), GRAPHCLOAK_NEO4J_HEAP (default 2g),
# GRAPHCLOAK_NEO4J_PAGECACHE (default 256m), GRAPHCLOAK_NEO4J_UNRESTRICTED
# (procedures allowed the kernel, default gds.*,graphcloak.*), GRAPHCLOAK_NEO4J_START_TIMEOUT
# (seconds, default 180), GRAPHCLOAK_NEO4J_WATCH_PID (stop when that process
# is gone), GRAPHCLOAK_NEO4J_NO_PLUGIN=1 (start without graphcloak's plugin,
# which is otherwise built by scripts/neo4j-plugin.sh and installed).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pomdir="$root/integration/neo4j"
cpfile="$pomdir/cp.txt"

log() { printf 'neo4j.sh: %s\n' "$*" >&2; }

# find_java prints a java binary for Neo4j 5.26: major version 17 (its
# reference Java), else 21 (supported since 5.14).
find_java() {
	local c v major
	for major in 17 21; do
		for c in "${GRAPHCLOAK_JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" \
			/usr/lib/jvm/java-$major-openjdk-amd64/bin/java /usr/lib/jvm/java-$major-openjdk*/bin/java \
			/usr/lib/jvm/*-$major*/bin/java /usr/lib/jvm/*$major*/bin/java "$(command -v java || true)"; do
			[[ -n "$c" && -x "$c" ]] || continue
			v="$("$c" -version 2>&1 | head -n1)"
			if [[ "$v" =~ \"$major[.\"] ]]; then
				printf '%s\n' "$c"
				return 0
			fi
		done
	done
	log "no Java 17 (or 21) found: Neo4j 5.26 needs OpenJDK 17; set GRAPHCLOAK_JAVA"
	return 1
}

# classpath resolves neo4j-harness and its dependencies from Maven Central
# (cached in ~/.m2) into integration/neo4j/cp.txt, once per pom.xml change.
classpath() {
	if [[ ! -s "$cpfile" || "$pomdir/pom.xml" -nt "$cpfile" ]]; then
		command -v mvn >/dev/null || { log "mvn not found (needed to fetch neo4j-harness)"; return 1; }
		local t0=$SECONDS java_home
		java_home="$(dirname "$(dirname "$(readlink -f "$1")")")"
		log "resolving the neo4j-harness classpath with Maven (a cold ~/.m2 downloads ~170 MB)"
		JAVA_HOME="$java_home" mvn -q -B -Dstyle.color=never -f "$pomdir/pom.xml" dependency:build-classpath \
			-Dmdep.outputFile="$cpfile.tmp" >&2
		mv "$cpfile.tmp" "$cpfile"
		log "classpath ready in $((SECONDS - t0)) s"
	fi
}

# alive PID succeeds when PID is a running Launcher we started.
alive() {
	local pid="$1"
	[[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'Launcher.java'
}

start() {
	local dir="${1:-$root/.neo4j/default}" port="${2:-${NEO4J_PORT:-0}}"
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	local pidfile="$dir/neo4j.pid" ready="$dir/ready" logf="$dir/neo4j.log"
	if [[ -f "$pidfile" ]] && alive "$(cat "$pidfile")"; then
		log "already running (pid $(cat "$pidfile")) in $dir"
		status "$dir"
		return
	fi
	local java
	java="$(find_java)"
	classpath "$java"
	local plugin=""
	if [[ -z "${GRAPHCLOAK_NEO4J_NO_PLUGIN:-}" ]]; then
		plugin="$(JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$java")")")" bash "$root/scripts/neo4j-plugin.sh")"
	fi
	rm -f "$ready" "$pidfile"
	local t0=$SECONDS
	# setsid: the server gets its own process group, so a Ctrl-C in the
	# terminal reaches the test run, whose trap stops the server cleanly.
	NEO4J_PASSWORD="${NEO4J_PASSWORD:-graphcloak-test}" GRAPHCLOAK_NEO4J_PLUGINS="$plugin" setsid "$java" \
		-Xmx"${GRAPHCLOAK_NEO4J_HEAP:-2g}" -XX:+UseG1GC \
		-cp "$(cat "$cpfile")" "$pomdir/Launcher.java" "$dir/db" "$port" "$ready" \
		>"$logf" 2>&1 </dev/null &
	local pid=$!
	echo "$pid" >"$pidfile"
	local timeout="${GRAPHCLOAK_NEO4J_START_TIMEOUT:-180}"
	while [[ ! -s "$ready" ]]; do
		if ! kill -0 "$pid" 2>/dev/null; then
			log "server exited during startup; last log lines:"
			tail -n 30 "$logf" >&2 || true
			rm -f "$pidfile"
			return 1
		fi
		if ((SECONDS - t0 >= timeout)); then
			log "no Bolt after ${timeout} s; stopping pid $pid; last log lines:"
			tail -n 30 "$logf" >&2 || true
			stop "$dir"
			return 1
		fi
		sleep 0.5
	done
	local uri
	uri="$(tr -d '\n' <"$ready")"
	uri="${uri%/}"
	log "neo4j pid $pid up in $((SECONDS - t0)) s at $uri (log $logf)"
	printf 'NEO4J_URI=%s\n' "$uri"
}

stop() {
	local dir="${1:-$root/.neo4j/default}"
	local pidfile="$dir/neo4j.pid"
	if [[ ! -f "$pidfile" ]]; then
		log "nothing to stop in $dir (no pidfile)"
		return 0
	fi
	local pid
	pid="$(cat "$pidfile")"
	if ! alive "$pid"; then
		log "pid $pid is not running"
		rm -f "$pidfile" "$dir/ready"
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null || true
	local i
	for ((i = 0; i < 120; i++)); do
		alive "$pid" || break
		sleep 0.5
	done
	if alive "$pid"; then
		log "pid $pid did not stop in 60 s; sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$pidfile" "$dir/ready"
	log "stopped pid $pid"
}

status() {
	local dir="${1:-$root/.neo4j/default}"
	if [[ -f "$dir/neo4j.pid" ]] && alive "$(cat "$dir/neo4j.pid")" && [[ -s "$dir/ready" ]]; then
		local uri
		uri="$(tr -d '\n' <"$dir/ready")"
		printf 'NEO4J_URI=%s\n' "${uri%/}"
		return 0
	fi
	log "not running in $dir"
	return 1
}

case "${1:-}" in
check) find_java >/dev/null && command -v mvn >/dev/null ;;
start) shift; start "$@" ;;
stop) shift; stop "$@" ;;
status) shift; status "$@" ;;
*)
	echo "usage: scripts/neo4j.sh start [DIR] [PORT] | stop [DIR] | status [DIR] | check" >&2
	exit 2
	;;
esac
