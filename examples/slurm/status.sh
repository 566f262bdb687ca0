#!/usr/bin/env bash
# The progress of a graphcloak job array (examples/slurm/submit.sh), from
# the files its tasks leave in WORK (so it needs no accounting daemon):
#
#   examples/slurm/status.sh WORK
#   array 41: 5 of 8 parts, 2 running, 1 pending, 0 failed; 3m10s since the first task began; about 1m50s left (5 tasks of 58 s on average, 2 at a time)
#
# Failed tasks are named, with their logs and the command that reruns them;
# exits 0 when every part is there, 1 otherwise.
set -uo pipefail
work="${1:?usage: status.sh WORK}"
[[ -s "$work/count" ]] || { echo "status.sh: $work is not the WORK of examples/slurm/submit.sh (no $work/count)" >&2; exit 2; }
n="$(cat "$work/count")" now="$(date +%s)"
done_n=0 running=0 failed=() first="" total=0
for ((i = 0; i < n; i++)); do
	{ read -r state _ <"$work/status/task-$i"; } 2>/dev/null || state=pending
	[[ -s "$work/parts/part-$i.json" ]] && state=done
	start="$(cat "$work/status/task-$i.start" 2>/dev/null)" || start=""
	[[ -n "$start" && (-z "$first" || "$start" -lt "$first") ]] && first="$start"
	case "$state" in
	done)
		done_n=$((done_n + 1))
		[[ -n "$start" ]] && total=$((total + $(stat -c %Y "$work/parts/part-$i.json") - start))
		;;
	running) running=$((running + 1)) ;;
	failed) failed+=("$i") ;;
	esac
done
pending=$((n - done_n - running - ${#failed[@]}))
dur() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
line="array $(tail -n1 "$work/array.jobid" 2>/dev/null): $done_n of $n parts, $running running, $pending pending, ${#failed[@]} failed"
[[ -n "$first" ]] && line+="; $(dur $((now - first))) since the first task began"
if ((done_n > 0 && running + pending > 0)); then
	# The tasks left, at the mean time of those done, as many at once as
	# run now (at least one).
	mean=$((total / done_n)) at=$((running > 0 ? running : 1))
	left=$(((running + pending) * mean / at))
	line+="; about $(dur "$left") left ($done_n tasks of $mean s on average, $at at a time)"
fi
[[ -s "$work/certificate.json" ]] && line+="; merged: $work/certificate.json"
echo "$line"
if ((${#failed[@]})); then
	echo "failed tasks: ${failed[*]} (logs: $work/logs/task-I.log); rerun them and merge again: $(dirname "$0")/submit.sh --resubmit $work"
fi
((done_n == n))
