#!/usr/bin/env bash
# Issue 79's table: every estimate against its time. Per graph and command
# it runs COMMAND --estimate (its own wall time and the figure it prints),
# then the command itself with stderr on a pipe, each line stamped on
# arrival, under /usr/bin/time; it prints one row for the command (the
# first line's estimate, the total, the CPU-s and CPU-s / 2, the load) and
# one row per step that printed an estimate ("estimated X for STEP") or a
# "STEP: done … in T" line, with the step's estimate, its done time and
# their ratio. Two progress checks per command: "stuck" is the longest a
# step's log showed one count below its total at ≥ 99 % (seconds), "after"
# how many of a step's lines came after its done line (both should be 0).
#
#   bash bench/estimate/steps.sh GRAPH...
#
# GRAPH as --graph takes it (file:/work/idle/lfr20k.csv, gt:astro-ph, …).
# Environment:
#   STEPS_COMMANDS   default "plan audit release locate answer load serve":
#                    plan (5 ε, τ = 1), audit (--save), release (one source's
#                    readings, fresh store: Δ2 computed), locate (on that
#                    release), answer (locate --private-answer --sensor-noise
#                    0.005 on the audit's store: its second pass), load and
#                    serve (one slot on what load wrote; NEO4J_URI needed,
#                    source /work/neo4j-env.sh)
#   STEPS_TIMEOUT    seconds a command may run (default 1800; the row then
#                    says "cut" and the last line's own projection)
#   STEPS_LABEL      the Neo4j label prefix (default Steps$$; the nodes stay:
#                    MATCH (n:LABEL) DETACH DELETE n removes them)
#   STEPS_KEEP       a directory to copy each stamped log to
#   GRAPHCLOAK       a built binary (default: built from this checkout)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
timeout_s="${STEPS_TIMEOUT:-1800}"
commands="${STEPS_COMMANDS:-plan audit release locate answer load serve}"
label="${STEPS_LABEL:-Steps$$}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
bin="${GRAPHCLOAK:-}"
if [[ -z "$bin" ]]; then
	bin="$out/graphcloak"
	(cd "$root" && go build -o "$bin" ./cmd/graphcloak)
fi
readings="$out/readings"
(cd "$root" && go build -o "$readings" ./bench/verdict/readings)
[[ $# -gt 0 ]] || { echo "usage: steps.sh GRAPH..." >&2; exit 2; }
export XDG_CONFIG_HOME="$out/config"

# stamp runs a command under /usr/bin/time with stdout discarded and each
# stderr line stamped with its arrival time into LOG; LOG.times holds the
# start, the end and the load at the start, LOG.cpu the CPU-s, LOG.rc the
# exit code (124: cut).
stamp() {
	local log="$1" t0 load
	shift
	t0=$(date +%s.%N)
	load=$(cut -d' ' -f1 /proc/loadavg)
	# time outside timeout: a command cut still has its CPU-s.
	{
		/usr/bin/time -f '%U %S %M' -o "$log.cpu" timeout "$timeout_s" "$@" 2>&1 >/dev/null
		echo $? >"$log.rc"
	} | python3 -u -c 'import sys, time
for line in sys.stdin:
    print("%.6f %s" % (time.time(), line), end="", flush=True)' >"$log"
	printf '%s %s %s\n' "$t0" "$(date +%s.%N)" "$load" >"$log.times"
}

# estimate times COMMAND --estimate: LOG.est its wall and CPU seconds,
# LOG.est.out its output.
estimate() {
	local log="$1"
	shift
	/usr/bin/time -f '%e %U %S' -o "$log.est" "$@" --estimate >"$log.est.out" 2>&1 || true
}

run() {
	local name="$1" log="$dir/$1.log"
	shift
	estimate "$log" "$@"
	stamp "$log" "$@"
	python3 "$root/bench/estimate/steps_report.py" "$graph" "$name" "$log"
	[[ -z "${STEPS_KEEP:-}" ]] || cp "$log" "$STEPS_KEEP/$tag-$name.log"
}

echo "| graph | command / step | estimate | done in | ratio | CPU-s (÷2) | ratio to CPU-s÷2 | --estimate run | load | stuck ≥ 99 % (s) | lines after done |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for graph in "$@"; do
	tag="$(basename "${graph#*:}" .csv | tr -cd "A-Za-z0-9")"
	dir="$out/$tag"
	mkdir -p "$dir"
	# Setup (not timed): the noiseless readings of 1000 units at one node
	# (bench/verdict/readings), a keyed ledger.
	"$readings" -graph "$graph" -tau 1 -mass 1000 -sources 1 -out "$dir" >/dev/null
	mv "$dir/r0.csv" "$dir/readings.csv"
	"$bin" keygen --out "$dir/ledger.key" -q >/dev/null
	"$bin" budget --init --ledger "$dir/ledger.json" --ledger-key "$dir/ledger.key" --scope steps --epsilon-total 1000 --delta-total 1e-3 --answer-delta 1e-4 -q >/dev/null
	ledger=(--ledger "$dir/ledger.json" --ledger-key "$dir/ledger.key" --scope steps --epsilon 1 --delta 1e-6)
	neo=(--graph neo4j --node-labels "$label$tag" --relationship-types "${label^^}" --node-key-property k)
	for name in $commands; do
		case "$name" in
		plan) run plan "$bin" plan --graph "$graph" --tau 1 --epsilon 0.5,1,2,4,8 --cache-dir "$dir/store-plan" ;;
		audit) run audit "$bin" audit --graph "$graph" --tau 1 --save "$dir/answer.json" --cache-dir "$dir/store-audit" ;;
		release) run release "$bin" release --graph "$graph" "${ledger[@]}" --values "$dir/readings.csv" --out "$dir/release.json" --cache-dir "$dir/store-release" ;;
		locate)
			[[ -s "$dir/release.json" ]] || continue
			run locate "$bin" locate --graph "$graph" --release "$dir/release.json" --cache-dir "$dir/store-release" ;;
		answer)
			[[ -d "$dir/store-audit" ]] || continue
			run answer "$bin" locate --private-answer --graph "$graph" --tau 1 "${ledger[@]}" --values "$dir/readings.csv" --sensor-noise 0.005 --cache-dir "$dir/store-audit" ;;
		load)
			[[ -n "${NEO4J_URI:-}" ]] || continue
			run load "$bin" load --graph "$graph" --values "$dir/readings.csv" --value-property reading "${neo[@]:2}" ;;
		serve)
			[[ -n "${NEO4J_URI:-}" ]] || continue
			# One slot on what load wrote, its Δ2 from release's store; the
			# slot starts on the next minute: its time counts from then.
			run serve "$bin" serve "${neo[@]}" --value-property reading --write-property readingPrivate "${ledger[@]}" --schedule "@every 1m" --max-runs 1 --listen "" --log-level info --cache-dir "$dir/store-release" ;;
		*) echo "unknown command $name" >&2; exit 2 ;;
		esac
	done
done
