#!/usr/bin/env bash
# Start or stop the Neo4j Community 5.26 test server (neo4j-harness from Maven
# Central, run by integration/neo4j/Launcher.java on OpenJDK 17). No Docker and
# no manual installs: only the machine's JDK 17 and Maven.
#
#   eval "$(bash scripts/neo4j.sh start [DIR] [PORT])"
#                                         start in the background, wait for Bolt,
#                                         and set graphcloak's connection: prints
#     export GRAPHCLOAK_NEO4J_URI=bolt://127.0.0.1:PORT GRAPHCLOAK_NEO4J_USER=neo4j GRAPHCLOAK_NEO4J_PASSWORD=…
#     NEO4J_URI=bolt://127.0.0.1:PORT
#     export NEO4J_URI NEO4J_USER=neo4j NEO4J_PASSWORD=…   (the integration tests' variables)
#   scripts/neo4j.sh stop  [DIR]          stop the server started in DIR (by its PID)
#   scripts/neo4j.sh status [DIR]         print the same lines if it is running
#   scripts/neo4j.sh check                succeed when Java 17 and Maven are there
#
# DIR defaults to $GRAPHCLOAK_NEO4J_DIR, else .neo4j/default (gitignored); it
# holds the pidfile, the log, the ready file and the database (DIR/db/data,
# kept across restarts). PORT defaults to $NEO4J_PORT, else 7687 when that
# port is free, else 0 (a free port chosen by the server).
# Environment: NEO4J_PASSWORD (default graphcloak-test, >= 8 characters),
# GRAPHCLOAK_JAVA (a java 17 binary), GRAPHCLOAK_NEO4J_HEAP (default 2g),
# GRAPHCLOAK_NEO4J_PAGECACHE (default 256m), GRAPHCLOAK_NEO4J_UNRESTRICTED
# (procedures allowed the kernel, default gds.*,graphcloak.*), GRAPHCLOAK_NEO4J_START_TIMEOUT
# (seconds, default 180), GRAPHCLOAK_NEO4J_WATCH_PID (stop when that process
# is gone), GRAPHCLOAK_NEO4J_NO_PLUGIN=1 (start without graphcloak's plugin,
# which is otherwise built by scripts/neo4j-plugin.sh and installed),
# GRAPHCLOAK_NEO4J_JAVA_OPTS (more JVM options, split on spaces: e.g.
# -XX:StartFlightRecording=filename=neo4j.jfr to profile the server).
#
# Everything slow is done once and cached under ${XDG_CACHE_HOME:-~/.cache}/graphcloak,
# keyed by the content of its sources, so a fresh clone or a worktree reuses it:
# the classpath Maven resolves (by pom.xml), the plugin jar (by its sources,
# scripts/neo4j-plugin.sh) and the compiled Launcher (by Launcher.java and the
# classpath). A warm start is the server's own start. Maven runs in batch mode
# without colours or transfer progress; its output is kept plain text.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pomdir="$root/integration/neo4j"
cpfile="$pomdir/cp.txt"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/graphcloak"

log() { printf 'neo4j.sh: %s\n' "$*" >&2; }

# plain_mvn runs Maven in batch mode, quiet, without colours or transfer
# progress, its output on stderr with any ANSI escape removed (Maven 3.8's
# jansi writes ESC[0m even with -B and -Dstyle.color=never).
plain_mvn() {
	mvn -B -q --no-transfer-progress -Dstyle.color=never "$@" 2>&1 | sed -u 's/\x1b\[[0-9;]*[A-Za-z]//g' >&2
}

# digest prints the SHA-256 of the given files' contents and names.
digest() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$root"/}"
		cat "$f"
	done | sha256sum | cut -c1-16
}

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
# (cached in ~/.m2) into integration/neo4j/cp.txt, once per pom.xml content
# (kept in the cache for other clones, as long as its jars are there).
classpath() {
	local cached
	cached="$cache/classpath/$(digest "$pomdir/pom.xml").txt"
	if [[ -s "$cpfile" && ! "$pomdir/pom.xml" -nt "$cpfile" ]]; then
		return 0
	fi
	if [[ -s "$cached" ]] && cp_present "$cached"; then
		cp "$cached" "$cpfile"
		return 0
	fi
	command -v mvn >/dev/null || { log "mvn not found (needed to fetch neo4j-harness)"; return 1; }
	local t0=$SECONDS java_home
	java_home="$(dirname "$(dirname "$(readlink -f "$1")")")"
	log "resolving the neo4j-harness classpath with Maven (a cold ~/.m2 downloads ~170 MB)"
	JAVA_HOME="$java_home" plain_mvn -f "$pomdir/pom.xml" dependency:build-classpath -Dmdep.outputFile="$cpfile.tmp"
	mv "$cpfile.tmp" "$cpfile"
	mkdir -p "$(dirname "$cached")" && cp "$cpfile" "$cached"
	log "classpath ready in $((SECONDS - t0)) s"
}

# cp_present succeeds when every jar of classpath file $1 exists.
cp_present() {
	local IFS=: j
	for j in $(cat "$1"); do
		[[ -e "$j" ]] || return 1
	done
}

# launcher compiles Launcher.java once per content and classpath (javac
# ~4 s of every start otherwise) and prints the class directory; without
# javac it prints nothing and the source is run as it is.
launcher() {
	local java="$1" javac dir
	javac="$(dirname "$(readlink -f "$java")")/javac"
	[[ -x "$javac" ]] || return 0
	dir="$cache/launcher/$(digest "$pomdir/Launcher.java" "$cpfile")"
	if [[ ! -s "$dir/Launcher.class" ]]; then
		mkdir -p "$dir.tmp.$$"
		"$javac" -nowarn -cp "$(cat "$cpfile")" -d "$dir.tmp.$$" "$pomdir/Launcher.java" >&2 || { rm -rf "$dir.tmp.$$"; return 0; }
		rm -rf "$dir" && mv "$dir.tmp.$$" "$dir"
	fi
	printf '%s\n' "$dir"
}

# exports prints the eval-able connection lines for Bolt URI $1.
exports() {
	local uri="$1" pw="${NEO4J_PASSWORD:-graphcloak-test}"
	printf 'export GRAPHCLOAK_NEO4J_URI=%q GRAPHCLOAK_NEO4J_USER=neo4j GRAPHCLOAK_NEO4J_PASSWORD=%q\n' "$uri" "$pw"
	printf 'NEO4J_URI=%q\n' "$uri"
	printf 'export NEO4J_URI NEO4J_USER=neo4j NEO4J_PASSWORD=%q\n' "$pw"
}

# default_port is 7687 (graphcloak's and Neo4j's default) when nothing
# listens there, else 0.
default_port() {
	if (exec 3<>/dev/tcp/127.0.0.1/7687) 2>/dev/null; then
		log "port 7687 is taken: using a free port (the printed GRAPHCLOAK_NEO4J_URI names it)"
		echo 0
	else
		echo 7687
	fi
}

# alive PID succeeds when PID is a running Launcher we started.
alive() {
	local pid="$1"
	[[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE 'Launcher.java|-Dgraphcloak.neo4j.launcher'
}

start() {
	local dir="${1:-${GRAPHCLOAK_NEO4J_DIR:-$root/.neo4j/default}}" port="${2:-${NEO4J_PORT:-}}"
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	local pidfile="$dir/neo4j.pid" ready="$dir/ready" logf="$dir/neo4j.log"
	if [[ -f "$pidfile" ]] && alive "$(cat "$pidfile")"; then
		log "already running (pid $(cat "$pidfile")) in $dir"
		status "$dir"
		return
	fi
	[[ -n "$port" ]] || port="$(default_port)"
	local java t_all=$SECONDS
	java="$(find_java)"
	classpath "$java"
	local plugin=""
	if [[ -z "${GRAPHCLOAK_NEO4J_NO_PLUGIN:-}" ]]; then
		plugin="$(JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$java")")")" bash "$root/scripts/neo4j-plugin.sh")"
	fi
	local classes main=("$pomdir/Launcher.java") cp
	cp="$(cat "$cpfile")"
	classes="$(launcher "$java")"
	if [[ -n "$classes" ]]; then
		main=(Launcher)
		cp="$classes:$cp"
	fi
	rm -f "$ready" "$pidfile"
	local t0=$SECONDS
	# setsid: the server gets its own process group, so a Ctrl-C in the
	# terminal reaches the test run, whose trap stops the server cleanly.
	NEO4J_PASSWORD="${NEO4J_PASSWORD:-graphcloak-test}" GRAPHCLOAK_NEO4J_PLUGINS="$plugin" setsid "$java" \
		-Dgraphcloak.neo4j.launcher="$dir" -Xmx"${GRAPHCLOAK_NEO4J_HEAP:-2g}" -XX:+UseG1GC ${GRAPHCLOAK_NEO4J_JAVA_OPTS:-} \
		-cp "$cp" "${main[@]}" "$dir/db" "$port" "$ready" \
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
	log "neo4j pid $pid up in $((SECONDS - t0)) s at $uri (start $((SECONDS - t_all)) s in all; log $logf; stop: bash scripts/neo4j.sh stop${1:+ $dir})"
	exports "$uri"
}

stop() {
	local dir="${1:-${GRAPHCLOAK_NEO4J_DIR:-$root/.neo4j/default}}"
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
	local dir="${1:-${GRAPHCLOAK_NEO4J_DIR:-$root/.neo4j/default}}"
	if [[ -f "$dir/neo4j.pid" ]] && alive "$(cat "$dir/neo4j.pid")" && [[ -s "$dir/ready" ]]; then
		local uri
		uri="$(tr -d '\n' <"$dir/ready")"
		exports "${uri%/}"
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
