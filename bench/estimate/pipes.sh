#!/usr/bin/env bash
# Issue 61's pipe check on real graphs: every command that runs > 10 s
# prints an estimate within 2 s and a progress line at least every 30 s
# when standard error is a pipe. Each command runs with its stdout thrown
# away and its stderr piped through a loop that stamps every line with the
# time it arrived; per command the script reports the seconds to the first
# estimate line ("estimated …"), the longest gap between stderr lines (the
# start and the end count as lines), the total time, the first estimate's
# figure and total/estimate.
#
#   bash bench/estimate/pipes.sh [GRAPH...]
#
# GRAPH defaults to gt:email-Enron (36 692 nodes) and
# file:$LFR (the LFR 2·10⁴ graph, default .cache/utility/lfr20k-0.3.csv of
# the main checkout; bench/answer/run.sh makes it). Environment:
#   GRAPHCLOAK_DATASETS  the gt: datasets (scripts/fetch-datasets.sh fetches them)
#   PIPES_TIMEOUT        seconds a command may run (default 300; the row then says so)
#   PIPES_COMMANDS       the commands to run (default: all of them)
#   GRAPHCLOAK           a built binary (default: built from this checkout)
# The commands: release --dry-run (readings 1 at one node, 0 elsewhere),
# plan (one ε), audit, sensitivity (whose certificate the release below
# uses), release, locate on that release, communities, and load when
# NEO4J_URI is set (file graphs only). Each runs with a fresh cache
# directory, so nothing is reused between them. It takes long and loads
# both cores: say that the machine was shared when quoting it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
main="$(git -C "$root" worktree list --porcelain | awk '/^worktree /{print $2; exit}')"
lfr="${LFR:-$main/.cache/utility/lfr20k-0.3.csv}"
export GRAPHCLOAK_DATASETS="${GRAPHCLOAK_DATASETS:-$main/.cache/datasets}"
timeout_s="${PIPES_TIMEOUT:-300}"
commands="${PIPES_COMMANDS:-release-dry-run plan audit sensitivity release locate communities load}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
bin="${GRAPHCLOAK:-}"
if [[ -z "$bin" ]]; then
	bin="$out/graphcloak"
	(cd "$root" && go build -o "$bin" ./cmd/graphcloak)
fi
graphs=("$@")
[[ ${#graphs[@]} -gt 0 ]] || graphs=(gt:email-Enron "file:$lfr")
export XDG_CONFIG_HOME="$out/config"

# stamp runs a command with stdout discarded and each stderr line stamped
# with its arrival time (seconds since the epoch) into LOG; it writes the
# start, the end and the exit code beside it.
stamp() {
	local log="$1"
	shift
	local t0 rc
	t0=$(date +%s.%N)
	set +e
	(timeout "$timeout_s" "$@" 2>&1 >/dev/null; echo "rc $?" >"$log.rc") |
		while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done >"$log"
	set -e
	rc=$(awk '{print $2}' "$log.rc")
	printf '%s %s %s\n' "$t0" "$(date +%s.%N)" "$rc" >"$log.times"
}

# report prints one row of the table from a stamped log.
report() {
	python3 - "$@" <<'PY'
import re, sys
graph, name, log = sys.argv[1:4]
t0, t1, rc = open(log + ".times").read().split()
t0, t1 = float(t0), float(t1)
lines = []
for raw in open(log, encoding="utf-8", errors="replace"):
    ts, _, text = raw.rstrip("\n").partition(" ")
    lines.append((float(ts), text))

def seconds(text):
    # HumanDuration: "0.4 s", "45 s", "3 min 20 s", "2 h 5 min"
    m = re.search(r"estimated (?:up to )?((?:[\d.]+ h )?(?:[\d.]+ min ?)?(?:[\d.]+ s)?)", text)
    if not m or not m.group(1).strip():
        return None
    total, units = 0.0, {"h": 3600, "min": 60, "s": 1}
    for v, u in re.findall(r"([\d.]+) (h|min|s)\b", m.group(1)):
        total += float(v) * units[u]
    return total

first = next(((ts, t) for ts, t in lines if "estimated " in t), None)
stamps = [t0] + [ts for ts, _ in lines] + [t1]
gap = max(b - a for a, b in zip(stamps, stamps[1:]))
total = t1 - t0
est = seconds(first[1]) if first else None
status = "timeout" if rc == "124" else ("ok" if rc == "0" else "exit " + rc)
cols = [graph, name, status,
        "%.1f" % (first[0] - t0) if first else "none",
        "%.1f" % gap, "%.1f" % total,
        "%.0f" % est if est is not None else "-",
        "%.2f" % (total / est) if est else "-",
        str(len(lines))]
print("| " + " | ".join(cols) + " |")
PY
}

echo "| graph | command | status | first estimate (s) | longest gap (s) | total (s) | estimate (s) | total/estimate | stderr lines |"
echo "|---|---|---|---|---|---|---|---|---|"
for graph in "${graphs[@]}"; do
	tag="$(basename "${graph#*:}" .csv)"
	dir="$out/$tag"
	mkdir -p "$dir"
	# Setup (not timed): the node keys, readings 1 at the first node and
	# 0 elsewhere, a keyed ledger (its key seals the Δ2 certificate).
	XDG_CACHE_HOME="$dir/cache-setup" "$bin" communities --graph "$graph" --out "$dir/nodes.csv" -q >/dev/null
	awk -F, 'NR > 1 || $1 !~ /^(node|key|id)$/ {print $1 "," (n++ == 0 ? 1 : 0)}' "$dir/nodes.csv" >"$dir/readings.csv"
	"$bin" keygen --out "$dir/ledger.key" -q >/dev/null
	"$bin" budget --init --ledger "$dir/ledger.json" --ledger-key "$dir/ledger.key" --scope pipes --epsilon-total 1000 --delta-total 1e-3 -q >/dev/null
	common=(--graph "$graph" --ledger "$dir/ledger.json" --ledger-key "$dir/ledger.key" --scope pipes --epsilon 1 --delta 1e-6)
	for name in $commands; do
		log="$dir/$name.log"
		export XDG_CACHE_HOME="$dir/cache-$name"
		case "$name" in
		release-dry-run) stamp "$log" "$bin" release "${common[@]}" --values "$dir/readings.csv" --dry-run ;;
		plan) stamp "$log" "$bin" plan --graph "$graph" --epsilon 1 ;;
		audit) stamp "$log" "$bin" audit --graph "$graph" --save "$dir/answer.json" ;;
		sensitivity) stamp "$log" "$bin" sensitivity --graph "$graph" --ledger-key "$dir/ledger.key" --save "$dir/cert.json" ;;
		release)
			[[ -s "$dir/cert.json" ]] || continue
			stamp "$log" "$bin" release "${common[@]}" --values "$dir/readings.csv" --sensitivity-cert "$dir/cert.json" --out "$dir/release.json" ;;
		locate)
			[[ -s "$dir/release.json" ]] || continue
			stamp "$log" "$bin" locate --graph "$graph" --release "$dir/release.json" ;;
		communities) stamp "$log" "$bin" communities --graph "$graph" ;;
		load)
			[[ -n "${NEO4J_URI:-}" && "$graph" == file:* ]] || continue
			stamp "$log" "$bin" load --edges "${graph#file:}" --node-labels "Pipes$RANDOM" --relationship-types PIPES --node-key-property k ;;
		*) echo "unknown command $name" >&2; exit 2 ;;
		esac
		report "$graph" "$name" "$log"
		[[ -z "${PIPES_KEEP:-}" ]] || cp "$log" "$PIPES_KEEP/$tag-$name.log"
	done
done
