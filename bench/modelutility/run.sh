#!/usr/bin/env bash
# What a scope's sensor model costs the private answer (issue 77 item 5),
# measured, and plan's forecast of it beside: docs/guarantee.md, "What the
# sensor model costs, measured".
#
#   bash bench/modelutility/run.sh [GRAPH ...]   (default: karate gt:power lfr20k)
#
# For each graph and ε ∈ {1, 4} (BENCH_EPSILONS): answers actually drawn by
# answer.Run (bench/modelutility, BENCH_SOURCES sources a row, default 300,
# BENCH_DRAWS answers each, default 4) for today's answer without a model,
# the one-hop allowance (budget --init --sensor-noise 0.005 --drift-hops 1; the
# default is now `any`, randomized response) and that model with
# an 8-bit ADC and one faulty sensor (readings produced with them), and
# `graphcloak plan` forecasting each row: today's by --sensor-noise 0.005
# alone (the audit's exact rate on noiseless readings), the models' by
# --sensor-noise 0.005 --drift-hops 1 [--adc-quantum 0.00390625
# --faulty-sensors 1] (200 simulated sources).
# BENCH_CONFIGS picks the configurations (indices, default 0,1,2,3,4,5:
# today, d = 1, d = 1 + ADC, any, any + ADC, today on the ADC readings);
# plan runs only for those picked.
# τ = 1, unit sources (the ADC's full scale μ = 1: step 1/256), Leiden seed 1.
# gt:power needs the datasets (bash scripts/fetch-datasets.sh, then
# GRAPHCLOAK_DATASETS); lfr20k (or lfr5k) is made by networkit's
# LFRGenerator (bench/utility/lfr.py N 0.3 1: μ = 0.3, mean degree 15, max
# 300), in a venv under .cache/modelutility. JSON lines go to
# .cache/modelutility/GRAPH.jsonl and plan's to GRAPH.plan.json; the
# table (with CPU seconds: the machine may be shared) to standard output;
# plan's work store is .cache/modelutility/store.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$root/.cache/modelutility"
mkdir -p "$out"
cd "$root"
go build -o "$out/modelutility" ./bench/modelutility
go build -o "$out/graphcloak" ./cmd/graphcloak
eps="${BENCH_EPSILONS:-1,4}"
picked="${BENCH_CONFIGS:-0,1,2,3,4,5}"
models=(today default adc any anyadc) # plan's file of configurations 0–4 (5 has none)
graphs=("$@")
[[ ${#graphs[@]} -gt 0 ]] || graphs=(karate gt:power lfr20k)
for name in "${graphs[@]}"; do
	spec="$name"
	case "$name" in
	lfr*k)
		if [[ ! -s "$out/$name.csv" ]]; then # made once (or copied there)
			venv="${BENCH_VENV:-$out/venv}"
			if [[ ! -x "$venv/bin/python" ]]; then
				python3 -m venv "$venv"
				"$venv/bin/pip" install -q "networkit==11.*"
			fi
			n=$(( $(tr -dc 0-9 <<<"$name") * 1000 ))
			"$venv/bin/python" bench/utility/lfr.py "$n" 0.3 1 "$out/$name.csv" "$out/$name.comm.csv"
		fi
		spec="file:$out/$name.csv"
		;;
	esac
	file="${name//[:\/]/-}"
	/usr/bin/time -f "$name: measured in %U s user + %S s sys CPU, %e s wall" \
		"$out/modelutility" --graph "$spec" --name "$name" --epsilon "$eps" \
		--sources "${BENCH_SOURCES:-300}" --draws "${BENCH_DRAWS:-4}" --configs "$picked" >"$out/$file.jsonl"
	for i in ${picked//,/ }; do
		[[ $i -lt ${#models[@]} ]] || continue
		model="${models[$i]}"
		case "$model" in
		today) extra=() ;;
		default) extra=(--drift-hops 1) ;;
		adc) extra=(--drift-hops 1 --adc-quantum 0.00390625 --faulty-sensors 1) ;;
		any) extra=(--drift-hops any) ;;
		anyadc) extra=(--drift-hops any --adc-quantum 0.00390625 --faulty-sensors 1) ;;
		esac
		/usr/bin/time -f "$name ($model): plan in %U s user + %S s sys CPU, %e s wall" \
			"$out/graphcloak" plan --graph "$spec" --tau 1 --modes private-answer --epsilon "$eps" \
			--sensor-noise 0.005 "${extra[@]}" --trials 200 --cache-dir "$out/store" -o json >"$out/$file.$model.plan.json"
	done
done
"$out/modelutility" --table "$out" "${graphs[@]}"
