#!/usr/bin/env bash
# Submit a sharded graphcloak audit or Δ2 (docs/sharding.md) to Slurm: a job
# array of N shards and a merge that runs once every task has ended.
#
#   examples/slurm/submit.sh audit|sensitivity N WORK -- FLAGS...
#
# e.g.  examples/slurm/submit.sh audit 16 /shared/run1 -- --graph file:/shared/graph.csv --tau 1
#
# WORK is a directory every node sees (NFS, Lustre, …): the flags are kept in
# WORK/flags (one a line: every task and the merge read the same ones), the
# parts go to WORK/parts/part-I.json, each task's log and its state (running,
# done, failed) to WORK/logs and WORK/status, and the merge writes
# WORK/certificate.json. FLAGS are graphcloak's own, as a single run takes them
# (--graph, --tau, --ledger-key, --method …); give paths every node can read.
#
# Environment: GRAPHCLOAK (the binary, default graphcloak on PATH: the same
# build on every node, or the merge refuses the parts as foreign),
# CPUS_PER_TASK (default 2: each shard uses every core it is given),
# MEM_PER_TASK (default 2G), ATTEMPTS (default 2: a task that fails is run
# again in place, resuming from its checkpoint), SBATCH_FLAGS (more sbatch
# flags for both jobs, e.g. "--partition=long --time=4:00:00"; sbatch's own
# SBATCH_* variables work too). Prints the array's and the merge's job ids.
# examples/slurm/status.sh WORK shows the whole array's progress and names
# failed tasks; "submit.sh --resubmit WORK" reruns the tasks whose part is
# missing (each resumes from its checkpoint) and merges again.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { echo "usage: $0 audit|sensitivity N WORK -- FLAGS...  |  $0 --resubmit WORK" >&2; exit 2; }

# submit INDICES: the array tasks INDICES (0-15, or 3,7) and a merge that
# waits for them.
submit() {
	local array merge
	# shellcheck disable=SC2086 # SBATCH_FLAGS is a list of flags.
	array="$(sbatch --parsable --array="$1" --job-name="graphcloak-$kind" \
		--cpus-per-task="${CPUS_PER_TASK:-2}" --mem="${MEM_PER_TASK:-2G}" \
		--output="$work/logs/task-%a.log" --open-mode=append ${SBATCH_FLAGS:-} \
		--export=ALL,ARRAY_WORK="$work",ARRAY_SCRIPTS="$here" "$here/shard.sbatch")"
	array="${array%%;*}"
	# afterany, not afterok: the merge runs even when a task failed for
	# good, and refuses the parts naming the missing shards (status.sh
	# names the failed tasks; --resubmit reruns just those).
	# shellcheck disable=SC2086
	merge="$(sbatch --parsable --dependency="afterany:$array" --job-name="graphcloak-$kind-merge" \
		--cpus-per-task=1 --mem="${MEM_PER_TASK:-2G}" --output="$work/logs/merge.log" ${SBATCH_FLAGS:-} \
		--export=ALL,ARRAY_WORK="$work",ARRAY_SCRIPTS="$here" "$here/merge.sbatch")"
	merge="${merge%%;*}"
	printf '%s\n' "$array" >>"$work/array.jobid"
	printf '%s\n' "$merge" >"$work/merge.jobid"
	echo "array $array (tasks $1 of $n) and merge $merge submitted; progress: $here/status.sh $work"
}

if [[ "${1:-}" == --resubmit ]]; then
	(($# == 2)) || usage
	work="$(cd "$2" && pwd)" kind="$(cat "$2/kind")" n="$(cat "$2/count")"
	missing=()
	for ((i = 0; i < n; i++)); do
		[[ -s "$work/parts/part-$i.json" ]] || missing+=("$i")
	done
	((${#missing[@]})) || { echo "every part is there: nothing to resubmit" >&2; exit 0; }
	rm -f "$work/certificate.json"
	submit "$(IFS=,; echo "${missing[*]}")"
	exit 0
fi
(($# >= 4)) && [[ "$4" == -- ]] || usage
kind="$1" n="$2" work="$3"
shift 4
[[ "$kind" == audit || "$kind" == sensitivity ]] || usage
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "$0: N must be a positive integer, not '$n'" >&2; exit 2; }
mkdir -p "$work"
work="$(cd "$work" && pwd)"
if compgen -G "$work/parts/part-*.json" >/dev/null; then
	echo "$0: $work/parts already holds parts: use a new WORK per run (the merge would take them as foreign or duplicated)" >&2
	exit 2
fi
mkdir -p "$work/parts" "$work/logs" "$work/status"
printf '%s\n' "$@" >"$work/flags"
printf '%s\n' "$kind" >"$work/kind"
printf '%s\n' "$n" >"$work/count"
date +%s >"$work/submitted"
submit "0-$((n - 1))"
