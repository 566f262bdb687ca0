#!/usr/bin/env bash
# graphcloak's Leiden beside networkit PLM and ParallelLeiden, igraph
# multilevel and Leiden, and leidenalg (up to 2·10⁶ edges) on LFR and
# preferential-attachment graphs: time, edges/s per core, modularity, NMI
# against the planted partition, disconnected communities, peak RSS and
# graphcloak's memory estimate. Installs the peers from PyPI into
# .cache/venv-community; graphs are generated once into .cache/community-graphs.
#
#   bash bench/community/scale.sh [GRAPH...]   default: lfr:1e6 pa:1e6 lfr:1e7 pa:1e7
#   THREADS=2 (threads of graphcloak and networkit)
#   METHODS=networkit-plm,igraph-leiden (the peers to run; default all)
#   GRAPHCLOAK_BEFORE=path/to/graphcloak (another build, e.g. main's, in the
#     same run as a graphcloak-before row, for before/after tables)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
graphs=("$@")
((${#graphs[@]})) || graphs=(lfr:1e6 pa:1e6 lfr:1e7 pa:1e7)
venv="$root/.cache/venv-community"
if ! "$venv/bin/python" -c 'import networkit, igraph, leidenalg' 2>/dev/null; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q networkit igraph leidenalg
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/graphcloak" ./cmd/graphcloak
echo "# $(nproc) cores; THREADS=${THREADS:-2}; $(date -u +%FT%TZ)"
"$venv/bin/python" bench/community/scale.py table "$tmp/graphcloak" "${graphs[@]}"
