#!/usr/bin/env bash
# Make a headless Chromium available for the browser test of serve's
# operator page, from Debian's package, and print its path.
#
#   bash scripts/chromium.sh     # prints e.g. /usr/bin/chromium
#
# Uses a chromium already on PATH; otherwise installs Debian's "chromium"
# with apt-get (needs root, or sudo without a password). Exits non-zero with
# the reason on stderr when neither works.
set -euo pipefail

find_chromium() {
	for c in chromium chromium-browser google-chrome-stable google-chrome; do
		if command -v "$c" >/dev/null 2>&1; then
			command -v "$c"
			return 0
		fi
	done
	return 1
}

if find_chromium; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "chromium.sh: no chromium on PATH and no apt-get to install Debian's package" >&2
	exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=(sudo -n)
	else
		echo "chromium.sh: no chromium on PATH and not root (nor passwordless sudo) to apt-get install chromium" >&2
		exit 1
	fi
fi
echo "chromium.sh: installing Debian's chromium (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >&2 || true
if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2; then
	echo "chromium.sh: apt-get install chromium failed" >&2
	exit 1
fi
find_chromium || { echo "chromium.sh: chromium installed but not on PATH" >&2; exit 1; }
