#!/usr/bin/env bash
# The answer's audit as Slurm job arrays of N tasks (examples/slurm/), against
# the single run: one table row per N, with each task's CPU time
# (/usr/bin/time around every graphcloak process) and whether the merged
# certificate is the single run's, byte for byte (docs/sharding.md's table).
#
#   SLURM_CONF=… bash bench/slurm/run.sh GRAPH TAU N...
#   e.g. eval "$(bash scripts/slurm.sh start /tmp/slurm)"; bash bench/slurm/run.sh pa:n=5000,m=5,seed=1 1 1 2 4 8
#
# Environment: GRAPHCLOAK (the binary; default: built into the work
# directory), CPUS_PER_TASK (default 1), OUT (the work directory, default a
# new one under /tmp).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
(($# >= 3)) || { echo "usage: $0 GRAPH TAU N..." >&2; exit 2; }
graph="$1" tau="$2"
shift 2
: "${SLURM_CONF:?start a cluster first: eval \"\$(bash scripts/slurm.sh start DIR)\"}"
out="${OUT:-$(mktemp -d /tmp/graphcloak-slurm-bench.XXXXXX)}"
mkdir -p "$out"
bin="${GRAPHCLOAK:-$out/graphcloak}"
[[ -x "$bin" ]] || (cd "$root" && go build -o "$bin" ./cmd/graphcloak)
# Every process under /usr/bin/time, its line appended to TIMES.
cat >"$out/timed" <<W
#!/bin/sh
exec /usr/bin/time -a -o "\$TIMES" -f "%U %S %e %M" "$bin" "\$@"
W
chmod +x "$out/timed"
export XDG_CONFIG_HOME="$out/config" XDG_CACHE_HOME="$out/cache" CPUS_PER_TASK="${CPUS_PER_TASK:-1}" MEM_PER_TASK="${MEM_PER_TASK:-2G}"
cpu() { awk '{c += $1 + $2; if ($1 + $2 > m) m = $1 + $2} END {printf "%.1f %.1f\n", c, m}' "$1"; }
# A single run already in OUT is kept (more rows for the same graph).
[[ -s "$out/single.json" && -s "$out/single.times" ]] ||
	TIMES="$out/single.times" "$out/timed" audit --graph "$graph" --tau "$tau" --save "$out/single.json" >/dev/null
read -r single _ < <(cpu "$out/single.times")
echo "| N | wall (submit → merged) | CPU, all tasks | CPU, largest task | merged = single |"
echo "| 1 (no Slurm) | $(awk '{print $3}' "$out/single.times") s | $single s | $single s | — |"
for n in "$@"; do
	work="$out/n$n"
	rm -rf "$work" "$work.times"
	t0=$(date +%s.%N)
	TIMES="$work.times" GRAPHCLOAK="$out/timed" bash "$root/examples/slurm/submit.sh" audit "$n" "$work" -- --graph "$graph" --tau "$tau" >/dev/null
	while [[ -n "$(squeue -h -j "$(cat "$work/merge.jobid")" 2>/dev/null)" ]]; do sleep 0.5; done
	wall=$(echo "$(date +%s.%N) - $t0" | bc)
	same=no
	cmp -s "$out/single.json" "$work/certificate.json" && same=yes
	# The merge's own line is the last in TIMES: the shards are the others.
	head -n -1 "$work.times" >"$work.shards.times"
	read -r total largest < <(cpu "$work.shards.times")
	printf '| %d | %.1f s | %s s | %s s | %s |\n' "$n" "$wall" "$total" "$largest" "$same"
done
