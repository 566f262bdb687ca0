#!/usr/bin/env bash
# One day of the hourly whisper job of docs/whisper.md, replayed: for each
# hour, that hour's exposure scores are released under the epoch an hourly
# `release --epoch auto` would name (2026-11-22T07:00Z, …), then located.
# Needs the walkthrough's graph, communities and budget in the Neo4j of
# GRAPHCLOAK_NEO4J_URI (password in GRAPHCLOAK_NEO4J_PASSWORD); run from the
# repository root. GRAPHCLOAK names the binary (default: graphcloak on PATH).
#
#   examples/whisper/day.sh [DAY]
set -euo pipefail
day="${1:-2026-11-22}"
gc="${GRAPHCLOAK:-graphcloak}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/whisper" ./examples/whisper
people=(--graph neo4j --node-labels Person --relationship-types KNOWS --node-key-property personId)
for h in $(seq -w 0 23); do
	"$tmp/whisper" exposure -hour "$((10#$h))" >"$tmp/exposure.csv"
	"$gc" release "${people[@]}" --values "$tmp/exposure.csv" --tau 1 --alpha 1 --epsilon 1 --delta 1e-7 \
		--ledger neo4j --scope whisper --epoch "${day}T${h}:00Z" --write-property exposurePrivate \
		--quiet -o json >"$tmp/release.json"
	run="$(grep -o '"runId": *"run-[^"]*"' "$tmp/release.json" | grep -o 'run-[^"]*')"
	"$gc" locate "${people[@]}" --release-run "$run" --communities property:community --quiet -o json >/dev/null
	echo "${day}T${h}:00Z released ($run) and located"
done
