#!/usr/bin/env bash
# The answer audit's estimate against the audit it estimates (issue 61):
# for each graph spec, `audit --estimate` (the cost model at the step rate
# measured on the graph) and then the audit itself under /usr/bin/time.
# Prints spec, estimate, wall, CPU (user+sys) and wall/estimate.
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
