#!/usr/bin/env bash
# Fetch the real networks that Debian's python3-graph-tool package ships
# (graph-tool's collection: the AS-level Internet "as-22july06",
# "email-Enron", "power", "cond-mat", "football", "polbooks", "polblogs", …)
# as gzip-compressed graph-tool .gt files into a cache directory that is
# never committed:
#
#   scripts/fetch-datasets.sh [DIR]     default $GRAPHCLOAK_DATASETS or .cache/datasets
#
# Only the package file is downloaded (apt-get download, no install, no
# root needed once the package lists are present; as root the lists are
# refreshed with apt-get update when the package is not found). The Go
# package datasets reads the files in place. Re-running is cheap: nothing
# is downloaded when the files are already there.
#
# Cora (2 708 machine-learning papers, 5 429 citations, 7 topics; McCallum et
# al. 2000) comes from the jar org.neo4j.gds:test-utils:2.13.9 on Maven
# Central (fetched with mvn, needs Maven): DIR/cora.csv is its citation graph
# (source,target) and DIR/cora-topics.csv each paper's topic (node,community),
# so --graph file:DIR/cora.csv --communities file:DIR/cora-topics.csv uses the
# topics as the ground-truth communities.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-${GRAPHCLOAK_DATASETS:-$root/.cache/datasets}}"
pkg=python3-graph-tool
want=(as-22july06 email-Enron power cond-mat football polbooks polblogs karate)

have_all() {
	local f
	for f in "${want[@]}"; do
		[[ -s "$dir/$f.gt.gz" ]] || return 1
	done
}
# fetch_cora extracts Cora from the GDS test-utils jar (Maven Central).
fetch_cora() {
	[[ -s "$dir/cora.csv" && -s "$dir/cora-topics.csv" ]] && return 0
	command -v mvn >/dev/null || {
		echo "fetch-datasets: mvn not found (Cora comes from org.neo4j.gds:test-utils on Maven Central)" >&2
		return 1
	}
	local tmp
	tmp="$(mktemp -d)"
	mvn -q -B -f "$root/integration/neo4j/pom.xml" dependency:copy \
		-Dartifact=org.neo4j.gds:test-utils:2.13.9 -DoutputDirectory="$tmp" -Dstyle.color=never >/dev/null
	mkdir -p "$dir"
	{ echo source,target; unzip -p "$tmp/test-utils-2.13.9.jar" cora.cites; } >"$dir/cora.csv.tmp"
	{ echo node,community; unzip -p "$tmp/test-utils-2.13.9.jar" cora.content | cut -d, -f1,2; } >"$dir/cora-topics.csv.tmp"
	mv "$dir/cora.csv.tmp" "$dir/cora.csv"
	mv "$dir/cora-topics.csv.tmp" "$dir/cora-topics.csv"
	rm -rf "$tmp"
}
fetch_cora

if have_all; then
	echo "datasets already in $dir"
	exit 0
fi

for tool in apt-get apt-cache dpkg-deb; do
	command -v "$tool" >/dev/null || {
		echo "fetch-datasets: $tool not found (needs a Debian/Ubuntu system)" >&2
		exit 2
	}
done
if ! apt-cache show "$pkg" >/dev/null 2>&1; then
	if [[ $(id -u) == 0 ]]; then
		apt-get update -qq
	else
		echo "fetch-datasets: apt does not know $pkg; run 'apt-get update' as root first" >&2
		exit 2
	fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# apt's sandbox user cannot write into a private temporary directory.
chmod 755 "$work"
(cd "$work" && apt-get download -q "$pkg" >/dev/null)
deb=("$work"/"$pkg"_*.deb)
dpkg-deb -x "${deb[0]}" "$work/x"
src="$(find "$work/x" -type d -path '*/graph_tool/collection' | head -n1)"
[[ -n "$src" ]] || {
	echo "fetch-datasets: ${deb[0]##*/} has no graph_tool/collection directory" >&2
	exit 1
}
mkdir -p "$dir"
cp "$src"/*.gt.gz "$dir"/
basename "${deb[0]}" >"$dir/SOURCE"
if ! have_all; then
	echo "fetch-datasets: ${deb[0]##*/} lacks some of: ${want[*]}" >&2
	exit 1
fi
echo "datasets from ${deb[0]##*/} in $dir:"
ls "$dir"
