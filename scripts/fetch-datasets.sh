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
