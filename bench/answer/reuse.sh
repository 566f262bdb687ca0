#!/usr/bin/env bash
# Issue 73's goal: plan, then locate --private-answer, then audit, with
# default flags, compute the answer's pass once — the second and third
# command reuse it from the work store. Runs the three on GRAPH with a
# fresh store (XDG_CACHE_HOME in OUTDIR), readings of one unit at a source
# drawn by bench/verdict/readings, and prints each command's wall and CPU
# time, whether it computed the pass, and the store's files by kind (one
# answer certificate, its calibrations, one audit per ε, one partition).
#
#   GRAPHCLOAK_DATASETS=/work/datasets bash bench/answer/reuse.sh [GRAPH] [OUTDIR]
#
# defaults: gt:email-Enron, a temporary directory (removed at the end
# unless OUTDIR is given). The first command (plan) runs the pass: on
# Enron, hours on 2 shared cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
graph="${1:-gt:email-Enron}"
cd "$root"
if [[ -n "${2:-}" ]]; then
	out="$2"
	mkdir -p "$out"
else
	out="$(mktemp -d)"
	trap 'rm -rf "$out"' EXIT
fi
go build -o "$out/graphcloak" ./cmd/graphcloak
go build -o "$out/readings" ./bench/verdict/readings
export XDG_CACHE_HOME="$out/cache" XDG_CONFIG_HOME="$out/config"
gc="$out/graphcloak"
"$out/readings" -graph "$graph" -mass 1 -sources 1 -out "$out"
[[ -f "$out/ledger.json" ]] || "$gc" budget --init --ledger "$out/ledger.json" --epsilon-total 10 --delta-total 1e-5 -q >/dev/null
step() {
	local name="$1"
	shift
	/usr/bin/time -f "$name: %e s wall, %U+%S CPU-s" "$gc" "$@" --log-level info >"$out/$name.out" 2>"$out/$name.err" || {
		echo "$name: exit $?" >&2
		tail -5 "$out/$name.err" >&2
		exit 1
	}
	tail -1 "$out/$name.err"
	if grep -q "computing the model" "$out/$name.err"; then echo "  $name computed the answer's pass"; else echo "  $name did not compute the answer's pass"; fi
	# The per-edge audit is the other long step: kept once, one file.
	echo "  audits in the store: $(ls "$XDG_CACHE_HOME/graphcloak/store" | grep -c '^audit-')$(grep -q 'answer audit reused' "$out/$name.err" && echo ' (reused)')"
}
step plan plan --graph "$graph"
step locate locate --graph "$graph" --private-answer --values "$out/r0.csv" --ledger "$out/ledger.json"
step audit audit --graph "$graph"
echo "store: $(ls "$XDG_CACHE_HOME/graphcloak/store" | sed 's/-.*//' | sort | uniq -c | tr '\n' ' ')"
