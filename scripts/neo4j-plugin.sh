#!/usr/bin/env bash
# Build graphcloak's Neo4j plugin (connector/neo4j-plugin: the read-only
# procedure graphcloak.read, which streams a projection in packed chunks) with
# Maven and print the jar's path. Install it by copying the jar into the
# server's plugins/ directory and restarting Neo4j (docs/neo4j.md).
#
#   scripts/neo4j-plugin.sh        build if no jar of these sources exists; print its path
#   NEO4J_VERSION=5.20.0 scripts/neo4j-plugin.sh
#                                  build against another Neo4j 5 release (the
#                                  plugin uses the kernel's API, which may change
#                                  between releases; default 5.26.30, the LTS the
#                                  tests run)
#
# The build runs the plugin's unit tests (connector/neo4j-plugin/test, JUnit);
# a failing test fails the build.
#
# The jar is built once per content: it is kept in
# ${XDG_CACHE_HOME:-~/.cache}/graphcloak/neo4j-plugin/<digest of pom.xml, src/,
# test/ and NEO4J_VERSION>/, so a fresh clone or a worktree of the same
# sources reuses it without Maven (then in target/ as well). Maven runs in
# batch mode without colours or transfer progress (its output plain text,
# on stderr).
#
# Needs JDK 17 (or newer) and Maven; Maven fetches Neo4j's procedure API
# (provided by the server at run time, never bundled) from Maven Central.
set -euo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../connector/neo4j-plugin" && pwd)"
jar="$dir/target/graphcloak-neo4j-plugin.jar"
stamp="$dir/target/neo4j-version" # the Neo4j release the jar was built against
version="${NEO4J_VERSION:-}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/graphcloak/neo4j-plugin"

log() { printf 'neo4j-plugin.sh: %s\n' "$*" >&2; }

# key is the digest of everything the jar is built from.
key() {
	{
		printf 'neo4j %s\n' "${version:-default}"
		find "$dir/pom.xml" "$dir/src" "$dir/test" -type f -print0 | LC_ALL=C sort -z |
			while IFS= read -r -d '' f; do
				printf '%s\n' "${f#"$dir"/}"
				cat "$f"
			done
	} | sha256sum | cut -c1-16
}

stale() {
	[[ ! -s "$jar" ]] && return 0
	[[ "$(cat "$stamp" 2>/dev/null)" != "${version:-default}" ]] && return 0
	[[ -n "$(find "$dir/pom.xml" "$dir/src" "$dir/test" -newer "$jar" -print -quit)" ]]
}

cached="$cache/$(key)/graphcloak-neo4j-plugin.jar"
if [[ -s "$cached" ]]; then
	printf '%s\n' "$cached"
	exit 0
fi
if stale; then
	command -v mvn >/dev/null || { log "mvn not found (needed to build the plugin)"; exit 1; }
	t0=$SECONDS
	mvn -B -q --no-transfer-progress -Dstyle.color=never -f "$dir/pom.xml" ${version:+-Dneo4j.version="$version"} package 2>&1 |
		sed -u 's/\x1b\[[0-9;]*[A-Za-z]//g' >&2
	printf '%s\n' "${version:-default}" >"$stamp"
	log "built $jar${version:+ for Neo4j $version} in $((SECONDS - t0)) s"
fi
mkdir -p "$(dirname "$cached")"
cp "$jar" "$cached.tmp.$$" && mv "$cached.tmp.$$" "$cached"
printf '%s\n' "$cached"
