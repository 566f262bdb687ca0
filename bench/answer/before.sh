#!/usr/bin/env bash
# The private answer's guarantee oracle (issue 47) run against the code
# before the certified recovery (commit db7428a): readings by gonum's Padé
# expm for every source, the published distribution P(o | recovered node),
# the worst privacy loss over every edge. Every row of the issue's table
# fails there; TestAnswerGuaranteeOracle (package answer) is the same check
# against today's code.
#
#   bash bench/answer/before.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(mktemp -d)"
trap 'git -C "$root" worktree remove --force "$dir/old" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
git -C "$root" worktree add -q "$dir/old" db7428a
mkdir -p "$dir/old/internal/heattest"
cp "$root/internal/heattest/heattest.go" "$dir/old/internal/heattest/"
cp "$root/bench/answer/before_oracle_test.go.txt" "$dir/old/old_oracle_test.go"
cd "$dir/old"
go test -run TestOldOracle -v . 2>&1 | grep -E 'recovered wrongly|^(ok|FAIL|--- )' || true
