#!/usr/bin/env bash
# The graphcloak test command: the lint gates, go vet, then every test
# against a real Neo4j. One line per phase, with its time, on stderr; what
# the phases download or build goes to logs in .cache/test/.
#
# The race detector: every package runs under -race, since nearly every one
# has concurrent code (workers in sensitivity, community, laplacian and
# expm; the ledger, leases and serve; the integration tests' parallel
# clients). Only the tests listed in norace_tests below run without it:
# exhaustive numeric oracles and Monte Carlo checks of rates, whose time is
# arithmetic on one goroutine — where -race finds nothing and costs ten- to
# twentyfold — while the concurrent code they call runs under -race in the
# other tests. The integration package's server-bound tests run in
# parallel with each other (integration/doc.go).
#
#   scripts/test.sh [PACKAGES...]        default ./...
#
# Phases: modules (go mod download of the module and of the pinned linters
# in tools/go.mod); neo4j, started in the background while datasets and go
# vet run; go test, in the background while lint runs (gofmt, staticcheck,
# errcheck, ineffassign, gocognit — run with `go tool
# -modfile=tools/go.mod`, which builds them once into Go's build cache,
# about 80 CPU-seconds on a fresh machine), since the tests mostly wait on
# Neo4j. Each phase prints its line when it ends.
#
# When NEO4J_URI is unset it starts Neo4j Community 5.26 from Maven Central
# (scripts/neo4j.sh, needs only JDK 17 + Maven) — or, with
# GRAPHCLOAK_NEO4J_PROVIDER=docker or when Java/Maven are missing but Docker
# works, in Docker via testcontainers-go (integration/testcontainers) — and
# stops exactly that server (by its PID) on exit. When NEO4J_URI is set that server is used and left
# alone. NEO4J_USER (default neo4j) and NEO4J_PASSWORD (default
# graphcloak-test) are exported for the tests. With CI=true, or when this
# script started the server, GRAPHCLOAK_REQUIRE_NEO4J=1 makes a missing Neo4j
# fail the integration tests instead of skipping them. The server it starts
# gets graphcloak's Neo4j plugin (scripts/neo4j-plugin.sh) unless
# GRAPHCLOAK_NEO4J_NO_PLUGIN=1, and GRAPHCLOAK_NEO4J_PLUGIN=1 tells the tests
# to require it.
# When SLURM_CONF is unset it also starts a one-node Slurm cluster
# (scripts/slurm.sh: Debian's slurmctld, slurmd and munge, installed with
# apt-get when missing, which needs root) for the job-array test
# (integration's TestSlurmAuditArray), and stops exactly its daemons on
# exit; where it cannot (not root, no packages) that test skips, unless
# CI=true, where GRAPHCLOAK_REQUIRE_SLURM=1 makes it fail.
# GRAPHCLOAK_TEST_FLAGS adds flags to go test (e.g. "-run Connector -v").
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1
t_start=$SECONDS
pkgs=("$@")
whole=0
if ((${#pkgs[@]} == 0)); then
	whole=1 pkgs=(./...)
fi
logs="$root/.cache/test"
mkdir -p "$logs"
# banner PHASE STATUS SECONDS [NOTE]: the one line a phase prints.
banner() { printf '== %-9s %-6s %4d s%s\n' "$1" "$2" "$3" "${4:+  $4}" >&2; }
# tool NAME ARGS...: a linter pinned in tools/go.mod.
tool() { go tool -modfile="$root/tools/go.mod" "$@"; }

# Modules first, into a log: later phases then print no "go: downloading".
t0=$SECONDS
mod_rc=0
{ go mod download && go mod download -modfile="$root/tools/go.mod"; } >"$logs/modules.log" 2>&1 || mod_rc=1
if ((mod_rc)); then
	tail -n 20 "$logs/modules.log" >&2
	banner modules FAILED $((SECONDS - t0)) "$logs/modules.log"
	exit 1
fi
banner modules ok $((SECONDS - t0))

neo4j_dir=""
provider=""
neo4j_note="NEO4J_URI given: ${NEO4J_URI:-}"
slurm_dir=""
cleanup() {
	if [[ -n "$slurm_dir" ]]; then
		bash "$root/scripts/slurm.sh" stop "$slurm_dir" >>"$logs/slurm.log" 2>&1 || true
		rm -rf "$slurm_dir"
	fi
	if [[ -n "$neo4j_dir" ]]; then
		if [[ "$provider" == docker ]]; then
			stop_docker
		else
			# A throwaway server, whose data goes next: killed rather than
			# shut down, which takes about 10 s and keeps nothing.
			local pid
			pid="$(cat "$neo4j_dir/neo4j.pid" 2>/dev/null)" && kill -KILL "$pid" 2>/dev/null
			bash "$root/scripts/neo4j.sh" stop "$neo4j_dir" >/dev/null 2>&1 || true
		fi
		rm -rf "$neo4j_dir"
	fi
}
trap cleanup EXIT
# go vet/go test run in their own process group (setsid), so that a signal
# to this script is forwarded to them and their test binaries, and the
# server is stopped right after (the EXIT trap).
child=""
forward() {
	local p
	for p in $child ${norace_pid:-} ${test_pid:-} ${neo4j_start_pid:-} ${slurm_start_pid:-}; do
		kill -"$1" -- "-$p" 2>/dev/null || kill -"$1" "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
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

# start_docker runs integration/testcontainers (testcontainers-go's Neo4j
# module) in the background, as the server "process" in $neo4j_dir.
start_docker() {
	mkdir -p "$neo4j_dir"
	(cd "$root/integration/testcontainers" && go build -o "$neo4j_dir/tcneo4j" .) || return 1
	setsid "$neo4j_dir/tcneo4j" -ready "$neo4j_dir/ready" ${plugin_jar:+-plugin "$plugin_jar"} >"$neo4j_dir/neo4j.log" 2>&1 </dev/null &
	echo $! >"$neo4j_dir/neo4j.pid"
	local t0=$SECONDS
	while [[ ! -s "$neo4j_dir/ready" ]]; do
		kill -0 "$(cat "$neo4j_dir/neo4j.pid")" 2>/dev/null || { tail -n 20 "$neo4j_dir/neo4j.log" >&2; return 1; }
		((SECONDS - t0 < 300)) || return 1
		sleep 1
	done
	printf 'NEO4J_URI=%s\n' "$(tr -d '\n' <"$neo4j_dir/ready")"
}
stop_docker() {
	local pid
	pid="$(cat "$neo4j_dir/neo4j.pid" 2>/dev/null)" || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || return 0; sleep 1; done
	kill -KILL "$pid" 2>/dev/null || true
}

export NEO4J_USER="${NEO4J_USER:-neo4j}"
export NEO4J_PASSWORD="${NEO4J_PASSWORD:-graphcloak-test}"
if [[ -z "${NEO4J_URI:-}" ]]; then
	# harness: Neo4j from Maven Central on Java 17 (the default).
	# docker: testcontainers-go's Neo4j module, where a Docker engine works
	# (GRAPHCLOAK_NEO4J_PROVIDER=docker, or automatically without Java/Maven).
	provider="${GRAPHCLOAK_NEO4J_PROVIDER:-}"
	if [[ -z "$provider" ]]; then
		provider=harness
		if ! bash "$root/scripts/neo4j.sh" check 2>/dev/null && docker info >/dev/null 2>&1; then
			provider=docker
		fi
	fi
	# A directory per run, so concurrent runs in one checkout never share a server.
	neo4j_dir="$root/.neo4j/test-$$"
	t0=$SECONDS
	: >"$logs/neo4j.log"
	# graphcloak's Neo4j plugin (graphcloak.read) is installed wherever it
	# can be built (always with the harness, which needs Maven too); the
	# tests then require it (GRAPHCLOAK_NEO4J_PLUGIN=1).
	plugin_jar=""
	if [[ -z "${GRAPHCLOAK_NEO4J_NO_PLUGIN:-}" ]] && command -v mvn >/dev/null; then
		plugin_jar="$(bash "$root/scripts/neo4j-plugin.sh" 2>>"$logs/neo4j.log")" || plugin_jar=""
	fi
	[[ -n "$plugin_jar" ]] && export GRAPHCLOAK_NEO4J_PLUGIN=1
	# The server starts in the background, while datasets and go vet run;
	# wait_neo4j collects it before the tests.
	neo4j_out="$logs/neo4j-start.out"
	if [[ "$provider" == docker ]]; then
		start_docker >"$neo4j_out" &
	else
		# The server also stops by itself should this script be SIGKILLed.
		GRAPHCLOAK_NEO4J_WATCH_PID=$$ bash "$root/scripts/neo4j.sh" start "$neo4j_dir" 0 >"$neo4j_out" 2>>"$logs/neo4j.log" &
	fi
	neo4j_start_pid=$! neo4j_t0=$t0
fi
# wait_neo4j waits for the server started above, exports where it is, and
# prints the neo4j phase's line; it exits the script if the start failed.
wait_neo4j() {
	[[ -n "${neo4j_start_pid:-}" ]] || return 0
	wait "$neo4j_start_pid"
	local rc=$?
	neo4j_start_pid=""
	if ((rc == 0)); then
		NEO4J_URI="$(sed -n 's/^NEO4J_URI=//p' "$neo4j_out" | tail -n1)"
		export NEO4J_URI
		export GRAPHCLOAK_REQUIRE_NEO4J=1
		neo4j_note="started Neo4j ($provider) at $NEO4J_URI (pid $(cat "$neo4j_dir/neo4j.pid"))"
		banner neo4j ok $((SECONDS - neo4j_t0)) "$neo4j_note${plugin_jar:+, with the plugin}"
		return 0
	fi
	neo4j_note="FAILED to start Neo4j ($provider; see $neo4j_dir/neo4j.log)"
	tail -n 20 "$logs/neo4j.log" >&2
	banner neo4j FAILED $((SECONDS - neo4j_t0)) "$neo4j_note; $logs/neo4j.log"
	[[ "$provider" == docker ]] && stop_docker
	# Keep the log for inspection; there is no server left to stop.
	neo4j_dir=""
	echo "== summary: Neo4j start FAILED; not running tests" >&2
	exit 1
}
if [[ "${CI:-}" == "true" ]]; then
	export GRAPHCLOAK_REQUIRE_NEO4J=1 GRAPHCLOAK_REQUIRE_SLURM=1
fi
[[ -z "$neo4j_dir" ]] && banner neo4j given 0 "$neo4j_note"

# Slurm, for the job-array test: started in the background beside Neo4j
# (the first time, apt-get installs it: about 20 s), collected by
# wait_slurm before the tests. A directory per run, as for Neo4j.
slurm_note="SLURM_CONF given: ${SLURM_CONF:-}"
if [[ -z "${SLURM_CONF:-}" ]]; then
	slurm_dir="$root/.slurm/test-$$" slurm_t0=$SECONDS
	bash "$root/scripts/slurm.sh" start "$slurm_dir" >"$logs/slurm-start.out" 2>"$logs/slurm.log" &
	slurm_start_pid=$!
fi
# wait_slurm exports SLURM_CONF when the start succeeded; otherwise the
# test skips (or fails under CI=true) and says why.
wait_slurm() {
	[[ -n "${slurm_start_pid:-}" ]] || { banner slurm given 0 "$slurm_note"; return 0; }
	if wait "$slurm_start_pid"; then
		SLURM_CONF="$(sed -n 's/^export SLURM_CONF=//p' "$logs/slurm-start.out" | tail -n1)"
		export SLURM_CONF
		slurm_note="started a one-node Slurm ($SLURM_CONF)"
		banner slurm ok $((SECONDS - slurm_t0)) "$slurm_note"
	else
		slurm_note="no Slurm (its test $([[ "${CI:-}" == true ]] && echo fails || echo skips); $logs/slurm.log)"
		tail -n 5 "$logs/slurm.log" >&2
		banner slurm "$([[ "${CI:-}" == true ]] && echo FAILED || echo missing)" $((SECONDS - slurm_t0)) "$slurm_note"
		slurm_dir=""
	fi
	slurm_start_pid=""
}

# The real networks of the datasets tests (Debian's python3-graph-tool;
# gitignored cache): best effort, the tests skip without them.
t0=$SECONDS
if bash "$root/scripts/fetch-datasets.sh" >"$logs/datasets.log" 2>&1; then
	banner datasets ok $((SECONDS - t0))
else
	banner datasets missing $((SECONDS - t0)) "their tests will skip; $logs/datasets.log"
fi

t0=$SECONDS
run go vet "${pkgs[@]}"
vet_rc=$?
# The sensitivity and expm kernels' portable Go versions, which run where
# AVX2 is missing (-tags purego, another architecture), must build and vet
# too.
run go vet -tags purego ./sensitivity ./expm || vet_rc=1
run env GOARCH=arm64 go vet ./sensitivity ./expm || vet_rc=1
vet_s=$((SECONDS - t0))
banner "go vet" "$( ((vet_rc == 0)) && echo ok || echo FAILED)" "$vet_s" "also -tags purego and GOARCH=arm64 on ./sensitivity ./expm"
wait_neo4j
wait_slurm

# The race detector slows arithmetic ten- to twentyfold, and finds
# nothing in a test whose time is arithmetic on one goroutine. So the
# whole-suite run (./... without GRAPHCLOAK_TEST_FLAGS) runs the tests of
# norace_tests without it, beside the race run: exhaustive numeric oracles
# and Monte Carlo checks of rates, minutes under -race. Every other test,
# the concurrent code those oracles call included (sensitivity's workers,
# Leiden's concurrency, the ledger's races, serve, signals, the parallel
# integration tests), runs under -race. The race run skips these names in
# every package, and the other run takes every package defining one, so a
# test moved to another package stays in the suite.
norace_tests=(
	TestAnswerGuaranteeOracle TestEstimateMethodMatchesSensitivity
	TestGraphSensitivityClosedForms TestShardsMergeToTheSingleRun TestLanczosEdgeBracket
	TestModelRefinementSample TestChebColumnsOnBall
	TestForecastVerdict TestAnswerForecastMatchesRealized TestCeilingAboveOptimum
	TestMassCurveNoFalseResolution TestRoutedLPMatchesMatrix TestRoutedCeilingTighter
	TestRunSensitivityRates
	TestCertifiedRecoveryOracle TestEvidenceTestLevel TestPosteriorRefine
	TestAdaptiveSplitStrategy TestAdaptiveShareStrategy TestAnswerEnvelopeEmpiricalEpsilon
	TestDiscreteGaussianDistribution
	TestPictureExperimentSeriesVisible TestPictureCommunityGraphMarksSource
	TestPictureNoiseVerdictInTitle TestForecastBySourceMass
	TestRows8MatchesGo TestLanczosSecondOrder TestLanczosBlockMinSteps TestLanczosSchemeAgainstOracle
	TestPanelsAgreeWithDense TestDatasetEdgeListsWrittenBothWays TestAnswerGaussianNoiseOracle TestAnswerDeltaFilter
	TestVerdictRateIsLocates TestRoutedCeilingMonotoneInDelta
)
norace_pkgs=() norace_names=()
if ((whole)) && [[ -z "${GRAPHCLOAK_TEST_FLAGS:-}" ]]; then
	norace_names=("${norace_tests[@]}")
	mapfile -t norace_pkgs < <(git ls-files -z '*_test.go' | xargs -0 grep -lE "^func ($(IFS='|'; echo "${norace_names[*]}"))\(" |
		xargs -r -n1 dirname | sort -u | sed 's|^\.$|.|; s|^[^.]|./&|')
	((${#norace_pkgs[@]})) || norace_names=()
fi
norace_re=""
race_skip=()
if ((${#norace_names[@]})); then
	norace_re="^($(IFS='|'; echo "${norace_names[*]}"))\$"
	race_skip=(-skip "$norace_re")
fi
t0=$SECONDS
# The run without -race goes first into a log, in the background: its
# arithmetic fills the cores while the race run waits on Neo4j.
norace_rc=0 norace_pid=""
if [[ -n "$norace_re" ]]; then
	setsid go test -count=1 -timeout 20m -run "$norace_re" "${norace_pkgs[@]}" >"$logs/test-norace.log" 2>&1 &
	norace_pid=$!
fi
# The whole suite lists ./integration first: go test builds and runs the
# packages in the order given, two at a time, and integration, the
# longest (it mostly waits on Neo4j), would otherwise start only after
# most of the others.
test_pkgs=("${pkgs[@]}")
if ((whole)); then
	test_pkgs=(./integration ./...)
fi
# The tests run in the background while the linters run: the tests mostly
# wait on Neo4j.
# shellcheck disable=SC2086 # GRAPHCLOAK_TEST_FLAGS is a list of flags.
setsid go test -race -count=1 -timeout 40m "${race_skip[@]}" ${GRAPHCLOAK_TEST_FLAGS:-} "${test_pkgs[@]}" &
test_pid=$! test_t0=$t0

# Lint: gofmt; staticcheck (its default checks but quick-fix style
# suggestions and the unused check); errcheck on product code (the
# best-effort calls of tools/errcheck-exclude.txt left out); ineffassign;
# gocognit: every non-test function under 60. The linters are pinned in
# tools/go.mod (their go.sum verifies them) and built by `go tool` once into
# Go's build cache; each one's output is in .cache/test/lint.log.
t0=$SECONDS
lint_rc=0
lint_failed=()
: >"$logs/lint.log"
lint_step() {
	local name="$1"
	shift
	local out="$logs/lint-$name.out" t=$SECONDS
	run "$@" >"$out" 2>&1
	local rc=$?
	{ printf '\n== %s: exit %d in %d s\n' "$name" "$rc" $((SECONDS - t)); cat "$out"; } >>"$logs/lint.log"
	if ((rc != 0)); then
		cat "$out" >&2
		lint_failed+=("$name")
		lint_rc=1
	fi
	rm -f "$out"
}
cognit_dirs=()
for p in "${pkgs[@]}"; do
	p="${p%/...}"
	cognit_dirs+=("${p:-.}")
done
lint_step gofmt bash -c 'out="$(gofmt -l $(git ls-files "*.go"))"; [[ -z "$out" ]] || { printf "gofmt would change:\n%s\n" "$out"; exit 1; }'
lint_step staticcheck go tool -modfile="$root/tools/go.mod" staticcheck -checks 'inherit,-U1000,-QF1001,-QF1008' "${pkgs[@]}"
lint_step errcheck go tool -modfile="$root/tools/go.mod" errcheck -ignoretests -exclude "$root/tools/errcheck-exclude.txt" "${pkgs[@]}"
lint_step ineffassign go tool -modfile="$root/tools/go.mod" ineffassign "${pkgs[@]}"
lint_step gocognit go tool -modfile="$root/tools/go.mod" gocognit -over 60 -test=false "${cognit_dirs[@]}"
lint_s=$((SECONDS - t0))
banner lint "$( ((lint_rc == 0)) && echo ok || echo FAILED)" "$lint_s" "${lint_failed[*]:-gofmt staticcheck errcheck ineffassign gocognit}"

wait "$test_pid"
test_rc=$?
test_pid=""
if [[ -n "$norace_pid" ]]; then
	wait "$norace_pid" || norace_rc=1
	norace_pid=""
	cat "$logs/test-norace.log" >&2
	((norace_rc)) && test_rc=1
fi
test_s=$((SECONDS - test_t0))
banner "go test" "$( ((test_rc == 0)) && echo ok || echo FAILED)" "$test_s" "-race (${norace_re:+${#norace_names[@]} numeric tests without it; }Neo4j required: ${GRAPHCLOAK_REQUIRE_NEO4J:-0})"

status="PASS"
rc=0
if ((lint_rc != 0 || vet_rc != 0 || test_rc != 0)); then
	status="FAIL"
	rc=1
	((test_rc != 0)) && rc=$test_rc
fi
{
	echo "== graphcloak test summary"
	echo "   neo4j:   $neo4j_note"
	echo "   slurm:   $slurm_note"
	echo "   lint:    $([[ $lint_rc == 0 ]] && echo ok || echo "FAILED: ${lint_failed[*]}") in ${lint_s} s (gofmt, staticcheck, errcheck, ineffassign, gocognit; $logs/lint.log)"
	echo "   go vet:  $([[ $vet_rc == 0 ]] && echo ok || echo "FAILED (exit $vet_rc)") in ${vet_s} s"
	echo "   go test: $([[ $test_rc == 0 ]] && echo ok || echo "FAILED (exit $test_rc)") in ${test_s} s"
	echo "== $status in $((SECONDS - t_start)) s"
} >&2
exit "$rc"
