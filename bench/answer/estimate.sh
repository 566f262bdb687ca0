#!/usr/bin/env bash
# The answer audit's estimate against the audit it estimates (issue 61):
# for each graph spec, `audit --estimate` (the cost model at the step rate
# measured on the graph) and then the audit itself under /usr/bin/time.
# Prints spec, estimate, wall, CPU (user+sys) and wall/estimate; then the
# same for plan and release --dry-run (their --estimate against the run).
#
#   bash bench/answer/estimate.sh [SPEC...]   (default: pa graphs of 2·10³ … 1.6·10⁴ nodes)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go build -o "$out/graphcloak" "$root/cmd/graphcloak"
specs=("$@")
[[ ${#specs[@]} -gt 0 ]] || specs=(pa:n=2000,m=3,seed=1 pa:n=4000,m=3,seed=1 pa:n=8000,m=3,seed=1 pa:n=16000,m=3,seed=1)
printf "%-32s %10s %10s %10s %8s\n" spec estimate-s wall-s cpu-s wall/est
for spec in "${specs[@]}"; do
	est=$(XDG_CACHE_HOME="$out/cache" "$out/graphcloak" audit --graph "$spec" --tau 1 --save "$out/c.json" --estimate -o json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["estimate"]["seconds"])')
	XDG_CACHE_HOME="$out/cache" /usr/bin/time -f "%e %U %S" -o "$out/time" "$out/graphcloak" audit --graph "$spec" --tau 1 --save "$out/c.json" -q >/dev/null
	rm -f "$out/c.json"
	read -r wall user sys <"$out/time"
	python3 -c "import sys; s,e,w,u,y=sys.argv[1:]; e,w,u,y=map(float,(e,w,u,y)); print('%-32s %10.1f %10.1f %10.1f %8.2f' % (s,e,w,u+y,w/e))" "$spec" "$est" "$wall" "$user" "$sys"
done

# The other long steps' estimates against the commands (issue 61): plan's
# (Δ2, the audit, the simulated releases) and the release dry run's (its
# forecasts: the unit forecast, the private answer's, the forecast by
# source mass), `--estimate -o json`'s sum against the command's wall and
# CPU time. ESTIMATE_COMMAND_SPECS overrides the graphs (default the first
# two above).
cspecs=(${ESTIMATE_COMMAND_SPECS:-${specs[@]:0:2}})
printf "\n%-32s %-8s %10s %10s %10s %8s\n" spec command estimate-s wall-s cpu-s wall/est
for spec in "${cspecs[@]}"; do
	XDG_CACHE_HOME="$out/cache" "$out/graphcloak" communities --graph "$spec" --out "$out/nodes.csv" -q >/dev/null
	awk -F, 'NR > 1 {print $1 "," (n++ == 0 ? 1 : 0)}' "$out/nodes.csv" >"$out/readings.csv"
	rm -f "$out/l.json"
	"$out/graphcloak" budget --init --ledger "$out/l.json" --epsilon-total 100 --delta-total 1e-3 -q >/dev/null
	for cmd in plan dry-run; do
		case "$cmd" in
		plan) args=(plan --graph "$spec" --tau 1 --epsilon 1 --cache-dir none) ;;
		dry-run) args=(release --graph "$spec" --tau 1 --epsilon 1 --delta 1e-6 --values "$out/readings.csv" --ledger "$out/l.json" --dry-run) ;;
		esac
		est=$(XDG_CACHE_HOME="$out/cache" "$out/graphcloak" "${args[@]}" --estimate -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')
		XDG_CACHE_HOME="$out/cache" /usr/bin/time -f "%e %U %S" -o "$out/time" "$out/graphcloak" "${args[@]}" -q >/dev/null
		read -r wall user sys <"$out/time"
		python3 -c "import sys; s,c,e,w,u,y=sys.argv[1:]; e,w,u,y=map(float,(e,w,u,y)); print('%-32s %-8s %10.1f %10.1f %10.1f %8.2f' % (s,c,e,w,u+y,w/e))" "$spec" "$cmd" "$est" "$wall" "$user" "$sys"
	done
done
