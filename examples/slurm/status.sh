#!/usr/bin/env bash
# The progress of a graphcloak job array (examples/slurm/submit.sh), from
# the files its tasks leave in WORK (so it needs no accounting daemon):
#
#   examples/slurm/status.sh WORK
#   array 41: 5 of 8 parts, 2 running, 1 pending, 0 failed; 3m10s since the first task began; 70% of the work done, about 1m21s left at this pace
#
# Failed tasks are named, with their logs and the command that reruns them;
# exits 0 when every part is there, 1 otherwise.
set -uo pipefail
work="${1:?usage: status.sh WORK}"
[[ -s "$work/count" ]] || { echo "status.sh: $work is not the WORK of examples/slurm/submit.sh (no $work/count)" >&2; exit 2; }
n="$(cat "$work/count")" now="$(date +%s)"
done_n=0 running=0 failed=() first=""
for ((i = 0; i < n; i++)); do
	{ read -r state _ <"$work/status/task-$i"; } 2>/dev/null || state=pending
	[[ -s "$work/parts/part-$i.json" ]] && state=done
	start="$(cat "$work/status/task-$i.start" 2>/dev/null)" || start=""
	[[ -n "$start" && (-z "$first" || "$start" -lt "$first") ]] && first="$start"
	case "$state" in
	done) done_n=$((done_n + 1)) ;;
	running) running=$((running + 1)) ;;
	failed) failed+=("$i") ;;
	esac
done
pending=$((n - done_n - running - ${#failed[@]}))
dur() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
line="array $(tail -n1 "$work/array.jobid" 2>/dev/null): $done_n of $n parts, $running running, $pending pending, ${#failed[@]} failed"
[[ -n "$first" ]] && line+="; $(dur $((now - first))) since the first task began"
if ((running + pending > 0)) && [[ -n "$first" ]]; then
	# The share of the work done: whole parts, and each running audit
	# task's last progress line in its log ("answer audit: 448/2528 (17%)");
	# what is left at the pace so far.
	frac="$(for ((i = 0; i < n; i++)); do
		[[ -s "$work/parts/part-$i.json" ]] && { echo 1; continue; }
		grep -o 'answer audit: [0-9]*/[0-9]*' "$work/logs/task-$i.log" 2>/dev/null | tail -n1 | tr -dc '0-9/\n' | awk -F/ '$2 > 0 {print $1 / $2}'
	done | awk -v n="$n" '{s += $1} END {printf "%.4f\n", s / n}')"
	elapsed=$((now - first))
	if awk -v p="$frac" 'BEGIN {exit !(p > 0)}'; then
		left="$(awk -v p="$frac" -v e="$elapsed" 'BEGIN {printf "%d\n", e * (1 - p) / p}')"
		line+="; $(awk -v p="$frac" 'BEGIN {printf "%.0f", 100 * p}')% of the work done, about $(dur "$left") left at this pace"
	fi
fi
[[ -s "$work/certificate.json" ]] && line+="; merged: $work/certificate.json"
echo "$line"
if ((${#failed[@]})); then
	echo "failed tasks: ${failed[*]} (logs: $work/logs/task-I.log); rerun them and merge again: $(dirname "$0")/submit.sh --resubmit $work"
fi
((done_n == n))
