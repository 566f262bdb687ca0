#!/usr/bin/env bash
# Can honest sensors reach a collector under attack? Sets up karate's local
# release (keys, an epoch of 1 h, 12 honest reports), runs `graphcloak serve
# --collect-order` on 127.0.0.1 and bench/collector against it: an honest
# report beside 1 000 idle and 1 000 slow connections, a 4 MiB junk POST
# (its wall time and the collector's CPU seconds and peak resident memory),
# and an honest report during 10 such POSTs at once.
#
#   bash bench/collector/run.sh [BINARY [BENCH FLAGS]]    (BINARY "": built from this tree)
#   e.g. bash bench/collector/run.sh /tmp/old/graphcloak -junk=false
#
# 1 000 connections need 1 000 descriptors in the bench process (Go raises
# its soft limit to the hard one: `ulimit -Hn` must be ≥ 1 100); the
# collector holds at most --max-connections of them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
work="$(mktemp -d)"
bin="${1:-}"
shift || true
if [[ -z "$bin" ]]; then
	bin="$work/graphcloak"
	go build -o "$bin" ./cmd/graphcloak
fi
go build -o "$work/bench" ./bench/collector
echo "ulimit -n: soft $(ulimit -Sn), hard $(ulimit -Hn)"
cd "$work"
"$bin" keygen --out master.key
"$bin" keygen --signing --out coord.key
"$bin" keygen --master master.key --nodes "$root/examples/local/nodes.txt" --out-dir sensors --mac-csv macs.csv >/dev/null
"$bin" budget --init --ledger ledger.json --scope bench-collector --epsilon-total 10 --delta-total 1e-5 >/dev/null
"$bin" epoch open --graph karate --tau 1 --epsilon 0.5 --delta 1e-6 --ledger ledger.json \
	--scope bench-collector --epoch e1 --valid-for 1h --signing-key coord.key --out epoch.order >/dev/null
for n in $(seq 1 12); do
	"$bin" sensor report --order epoch.order --coordinator-key coord.key.pub --key "sensors/$n.key" \
		--policy "sensors/$n.policy.json" --odometer "sensors/$n.odometer.json" --node "$n" --value 0.5 >>honest.jsonl
done
port=$((20000 + RANDOM % 20000))
"$bin" serve --collect-order epoch.order --coordinator-key coord.key.pub --mac-keys macs.csv \
	--journal journal --listen "127.0.0.1:$port" 2>serve.log &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$port/epoch/progress" >/dev/null && break
	sleep 0.2
done
"$work/bench" -url "http://127.0.0.1:$port" -pid "$pid" -honest honest.jsonl "$@"
