#!/usr/bin/env bash
# How fast the long commands stop on SIGINT and SIGTERM (issue 32: within
# 1 s, with exit code 130). Each command is started on work that takes
# minutes, signalled once it has run WAIT seconds (default 5), and timed
# from the signal to its exit. Prints one line per command and signal:
# exit code, seconds to stop, the command.
#
#   bash bench/signal/stop.sh
#
# Timing lives here, not in tests (cmd/graphcloak/signal_test.go checks
# the exit code and that the signal is not ignored).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/.cache/signal/graphcloak"
mkdir -p "$(dirname "$bin")"
(cd "$root" && go build -o "$bin" ./cmd/graphcloak)
wait_s="${WAIT:-5}"

stop() { # signal command...
	local sig="$1" pid t0 t1 rc
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep "$wait_s"
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "finished before the signal: $*"
		return
	fi
	t0=$(date +%s.%N)
	kill "-$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	t1=$(date +%s.%N)
	printf 'SIG%-5s exit %3d  stopped in %6.3f s  %s\n' "$sig" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" "${*:2}"
}

for sig in INT TERM; do
	stop "$sig" "$bin" sensitivity --graph pa:n=2500,m=3 --tau 20 --method dense
	stop "$sig" "$bin" sensitivity --graph pa:n=20000,m=5 --tau 1
	stop "$sig" "$bin" experiment graph --graph pa:n=20000,m=5 --tau 1 --epsilon 1
	stop "$sig" "$bin" experiment graph --graph rgg:n=20000,radius=0.02,seed=1 --tau 1 --private-answer --epsilon 2
	stop "$sig" "$bin" plan --graph rgg:n=20000,radius=0.02,seed=1 --tau 1
	stop "$sig" "$bin" communities --graph pa:n=1000000,m=10
done
