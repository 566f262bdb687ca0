#!/usr/bin/env bash
# The newcomer's path, run as written: a fresh clone of this repository, only
# Go and the project's Neo4j (scripts/neo4j.sh; no cypher-shell), and the
# fenced ```sh blocks of README's quick start and file-based run,
# docs/neo4j.md and docs/whisper.md, extracted from the docs and run exactly
# as they are written, then the setup and the three scheduled jobs of
# docs/scheduling.md (crontab, systemd service, Kubernetes CronJob) with
# their absolute directories moved under a temporary one. Exits 0 when every
# command succeeded; otherwise it stops at the first that failed.
#
#   scripts/walkthrough.sh
#
# When NEO4J_URI is set that server is used (NEO4J_USER, NEO4J_PASSWORD;
# it must not hold the walkthrough's labels Room and Person or scopes
# building-7 and whisper yet); otherwise a server is started in the
# temporary directory and stopped, by its PID, on exit. The clone is of the
# committed HEAD: uncommitted changes are not walked.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/graphcloak-walkthrough.XXXXXX")"
started=""
cleanup() {
	local rc=$?
	if [[ -n "$started" ]]; then
		bash "$root/scripts/neo4j.sh" stop "$work/neo4j" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT

say() { printf '\n== walkthrough: %s\n' "$*" >&2; }

# sh_blocks FILE [HEADING]: the contents of the ```sh blocks of FILE, or of
# the first one after the line HEADING.
sh_blocks() {
	awk -v heading="${2:-}" '
		heading != "" && !found { if ($0 == heading) found = 1; next }
		/^```sh$/ { inblock = 1; next }
		/^```/ && inblock { inblock = 0; if (heading != "") exit; next }
		inblock { print }
	' "$1"
}

# run_block NAME: runs standard input as a bash script, echoing each command.
run_block() {
	local script
	script="$(mktemp "$work/block.XXXXXX")"
	cat >"$script"
	say "$1"
	sed 's/^/   | /' "$script" >&2
	bash -euo pipefail "$script"
}

# An environment with nothing of the user's graphcloak settings.
while IFS='=' read -r name _; do
	[[ "$name" == GRAPHCLOAK_* || "$name" == NEO4J_* && "$name" != NEO4J_URI && "$name" != NEO4J_USER && "$name" != NEO4J_PASSWORD ]] && unset "$name"
done < <(env)
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"

say "fresh clone of $(git -C "$root" rev-parse --short HEAD)"
git clone --quiet "$root" "$work/graphcloak"
cd "$work/graphcloak"

# README: the quick start (its second line is the test suite that runs this
# script), then graphcloak on PATH as README says, then the file-based run.
sh_blocks README.md "# graphcloak" | grep -v '^bash scripts/test.sh' | run_block "README quick start"
say "go install ./cmd/graphcloak"
GOBIN="$work/bin" go install ./cmd/graphcloak
export PATH="$work/bin:$PATH"
sh_blocks README.md "### A file-based run (no database)" | run_block "README file-based run"

# The project's Neo4j.
if [[ -z "${NEO4J_URI:-}" ]]; then
	say "starting Neo4j (scripts/neo4j.sh)"
	export NEO4J_PASSWORD="${NEO4J_PASSWORD:-graphcloak-test}"
	out="$(GRAPHCLOAK_NEO4J_HEAP="${GRAPHCLOAK_NEO4J_HEAP:-1g}" GRAPHCLOAK_NEO4J_START_TIMEOUT="${GRAPHCLOAK_NEO4J_START_TIMEOUT:-600}" \
		bash "$root/scripts/neo4j.sh" start "$work/neo4j" 0)"
	started=1
	NEO4J_URI="$(printf '%s\n' "$out" | sed -n 's/^NEO4J_URI=//p' | tail -n1)"
fi
export GRAPHCLOAK_NEO4J_URI="$NEO4J_URI"
export GRAPHCLOAK_NEO4J_USER="${NEO4J_USER:-neo4j}"
password="${NEO4J_PASSWORD:-graphcloak-test}"
# The guides' first step, eval "$(bash scripts/neo4j.sh start)", finds the
# server started above (GRAPHCLOAK_NEO4J_DIR) and sets its connection; with
# a server of the user's own that step is left out and the connection set here.
guide_filter=(cat)
if [[ -n "${started:-}" ]]; then
	export GRAPHCLOAK_NEO4J_DIR="$work/neo4j"
else
	guide_filter=(sed '/scripts\/neo4j.sh start/d')
	export GRAPHCLOAK_NEO4J_PASSWORD="$password"
fi

# docs/neo4j.md: its password prompt reads the password from standard input.
sh_blocks docs/neo4j.md | "${guide_filter[@]}" >"$work/neo4j-guide.sh"
say "docs/neo4j.md"
sed 's/^/   | /' "$work/neo4j-guide.sh" >&2
bash -euo pipefail "$work/neo4j-guide.sh" <<<"$password"

# README's "Against Neo4j" block, as written (its own projection and scope).
sh_blocks README.md "### Against Neo4j" | "${guide_filter[@]}" >"$work/readme-neo4j.sh"
say "README against Neo4j"
sed 's/^/   | /' "$work/readme-neo4j.sh" >&2
bash -euo pipefail "$work/readme-neo4j.sh" <<<"$password"

export GRAPHCLOAK_NEO4J_PASSWORD="$password"

# docs/scheduling.md: the setup, then each scheduled job once, with /etc,
# /var and /usr/local/bin under $work. The three jobs release the same hourly
# slot: the first charges it, the others find it published (exit 0).
sys="$work/sys"
mkdir -p "$sys/etc/graphcloak" "$sys/var/lib/graphcloak" "$sys/var/log"
cp examples/rooms-readings.csv "$sys/var/lib/graphcloak/readings.csv"
printf 'GRAPHCLOAK_NEO4J_URI=%s\nGRAPHCLOAK_NEO4J_PASSWORD=%s\n' "$GRAPHCLOAK_NEO4J_URI" "$password" >"$sys/etc/graphcloak/env"
chmod 600 "$sys/etc/graphcloak/env"
moved() { sed -e "s#/etc/graphcloak#$sys/etc/graphcloak#g" -e "s#/var/lib/graphcloak#$sys/var/lib/graphcloak#g" \
	-e "s#/var/log/#$sys/var/log/#g" -e "s#/usr/local/bin/graphcloak#graphcloak#g"; }
awk '/^## Setup, once/ { on = 1; next } /^## / { on = 0 } on && /^    graphcloak / { sub(/^    /, ""); print }' docs/scheduling.md |
	moved | run_block "docs/scheduling.md setup"
(
	unset GRAPHCLOAK_NEO4J_URI GRAPHCLOAK_NEO4J_PASSWORD # the jobs read them from the env file
	awk '/^## crontab/ { on = 1; next } /^## / { on = 0 } on && /^    [^ ]/ { sub(/^    /, ""); print; exit }' docs/scheduling.md |
		sed -E 's/^([^ ]+ +){5}//' | moved | run_block "docs/scheduling.md crontab line"
	{
		sed -n 's/^WorkingDirectory=/cd /p' examples/scheduling/graphcloak-release.service
		sed -n 's/^EnvironmentFile=/set -a; . /p' examples/scheduling/graphcloak-release.service | sed 's/$/; set +a/'
		sed -n 's/^ExecStart=//p' examples/scheduling/graphcloak-release.service
	} | moved | run_block "examples/scheduling/graphcloak-release.service"
	{
		echo "set -a; . /etc/graphcloak/env; set +a # envFrom: the Secret"
		awk '/- >-/ { on = 1; next } on && /^ *[a-zA-Z]+:/ { exit } on { sub(/^ +/, ""); printf "%s ", $0 } END { print "" }' examples/scheduling/cronjob.yaml
	} | moved | run_block "examples/scheduling/cronjob.yaml"
	grep -q '"level":"ERROR"' "$sys/var/log/graphcloak.log" && { echo "the crontab job logged an error" >&2; exit 1; }
	true
)

# docs/whisper.md.
sh_blocks docs/whisper.md | run_block "docs/whisper.md"

say "every block ran: exit 0"
