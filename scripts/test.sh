#!/usr/bin/env bash
# The graphcloak test command: go vet, then every test (race detector on)
# against a real Neo4j.
#
#   scripts/test.sh [PACKAGES...]        default ./...
#
# When NEO4J_URI is unset it starts Neo4j Community 5.26 from Maven Central
# (scripts/neo4j.sh, needs only JDK 17 + Maven), and stops exactly that server
# (by its PID) on exit. When NEO4J_URI is set that server is used and left
# alone. NEO4J_USER (default neo4j) and NEO4J_PASSWORD (default
# graphcloak-test) are exported for the tests. With CI=true, or when this
# script started the server, GRAPHCLOAK_REQUIRE_NEO4J=1 makes a missing Neo4j
# fail the integration tests instead of skipping them.
# GRAPHCLOAK_TEST_FLAGS adds flags to go test (e.g. "-run Connector -v").
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1
t_start=$SECONDS
pkgs=("$@")
((${#pkgs[@]})) || pkgs=(./...)

neo4j_dir=""
neo4j_note="NEO4J_URI given: ${NEO4J_URI:-}"
cleanup() {
	if [[ -n "$neo4j_dir" ]]; then
		bash "$root/scripts/neo4j.sh" stop "$neo4j_dir" || true
		rm -rf "$neo4j_dir"
	fi
}
trap cleanup EXIT
# go vet/go test run in their own process group (setsid), so that a signal
# to this script is forwarded to them and their test binaries, and the
# server is stopped right after (the EXIT trap).
child=""
forward() {
	if [[ -n "$child" ]]; then
		kill -"$1" -- "-$child" 2>/dev/null || kill -"$1" "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	exit "$2"
}
trap 'forward INT 130' INT
trap 'forward TERM 143' TERM
run() {
	setsid "$@" &
	child=$!
	wait "$child"
	local rc=$?
	child=""
	return "$rc"
}

export NEO4J_USER="${NEO4J_USER:-neo4j}"
export NEO4J_PASSWORD="${NEO4J_PASSWORD:-graphcloak-test}"
if [[ -z "${NEO4J_URI:-}" ]]; then
	# A directory per run, so concurrent runs in one checkout never share a server.
	neo4j_dir="$root/.neo4j/test-$$"
	t0=$SECONDS
	if out="$(bash "$root/scripts/neo4j.sh" start "$neo4j_dir" 0)"; then
		uri="$(printf '%s\n' "$out" | sed -n 's/^NEO4J_URI=//p' | tail -n1)"
		export NEO4J_URI="$uri"
		export GRAPHCLOAK_REQUIRE_NEO4J=1
		neo4j_note="started Neo4j at $NEO4J_URI in $((SECONDS - t0)) s (pid $(cat "$neo4j_dir/neo4j.pid"))"
	else
		neo4j_note="FAILED to start Neo4j (see $neo4j_dir/neo4j.log)"
		echo "test.sh: $neo4j_note" >&2
		# Keep the log for inspection, but there is no server to stop.
		neo4j_dir=""
		echo "== summary: Neo4j start FAILED; not running tests" >&2
		exit 1
	fi
fi
if [[ "${CI:-}" == "true" ]]; then
	export GRAPHCLOAK_REQUIRE_NEO4J=1
fi
echo "test.sh: $neo4j_note; GRAPHCLOAK_REQUIRE_NEO4J=${GRAPHCLOAK_REQUIRE_NEO4J:-0}" >&2

t0=$SECONDS
run go vet "${pkgs[@]}"
vet_rc=$?
vet_s=$((SECONDS - t0))

t0=$SECONDS
# shellcheck disable=SC2086 # GRAPHCLOAK_TEST_FLAGS is a list of flags.
run go test -race -count=1 -timeout 40m ${GRAPHCLOAK_TEST_FLAGS:-} "${pkgs[@]}"
test_rc=$?
test_s=$((SECONDS - t0))

status="PASS"
rc=0
if ((vet_rc != 0 || test_rc != 0)); then
	status="FAIL"
	rc=1
	((test_rc != 0)) && rc=$test_rc
fi
{
	echo "== graphcloak test summary"
	echo "   neo4j:   $neo4j_note"
	echo "   go vet:  $([[ $vet_rc == 0 ]] && echo ok || echo "FAILED (exit $vet_rc)") in ${vet_s} s"
	echo "   go test: $([[ $test_rc == 0 ]] && echo ok || echo "FAILED (exit $test_rc)") in ${test_s} s"
	echo "== $status in $((SECONDS - t_start)) s"
} >&2
exit "$rc"
