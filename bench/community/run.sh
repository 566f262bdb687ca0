#!/usr/bin/env bash
# graphcloak's Leiden against igraph's multilevel (Louvain) and Leiden on the
# same graphs, in one run: time (minimum of RUNS), modularity, and NMI with
# the ground truth where the dataset has one. Installs igraph from PyPI into
# .cache/venv-community and fetches the datasets (scripts/fetch-datasets.sh).
#
#   bash bench/community/run.sh [GRAPH...]     default: the graphs below
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
runs="${RUNS:-3}"
graphs=("$@")
((${#graphs[@]})) || graphs=(gt:football gt:polbooks gt:polblogs cora gt:as-22july06 gt:email-Enron "pa:n=100000,m=5,seed=1" "sbm:sizes=20000x20000x20000x20000x20000,pin=0.0005,pout=0.00001")
bash scripts/fetch-datasets.sh >/dev/null
venv="$root/.cache/venv-community"
if [[ ! -x "$venv/bin/python" ]]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q igraph
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bench" ./bench/community
printf '%-32s %9s %9s | %-22s | %-22s | %-22s\n' graph nodes edges "graphcloak leiden" "igraph multilevel" "igraph leiden"
for g in "${graphs[@]}"; do
	go_json="$("$tmp/bench" -graph "$g" -edges "$tmp/e.txt" -labels "$tmp/l.txt" -runs "$runs")"
	labels=-
	[[ -s "$tmp/l.txt" ]] && labels="$tmp/l.txt"
	n="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["nodes"])' "$go_json")"
	py_json="$("$venv/bin/python" bench/community/igraph_bench.py "$tmp/e.txt" "$n" "$labels" "$runs")"
	python3 - "$g" "$go_json" "$py_json" <<'PY'
import json, sys
g, go, py = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
def cell(r):
    s = f'{r["seconds"]:.3f}s Q={r["modularity"]:.3f}'
    return s + (f' NMI={r["nmi"]:.2f}' if "nmi" in r else "")
print(f'{g[:32]:<32} {go["nodes"]:>9} {go["edges"]:>9} | {cell(go):<22} | {cell(py["multilevel"]):<22} | {cell(py["leiden"]):<22}')
PY
	rm -f "$tmp/l.txt"
done
