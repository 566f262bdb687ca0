#!/usr/bin/env bash
# The newcomer's path, run as written: a fresh clone of this repository, only
# Go and the project's Neo4j (scripts/neo4j.sh; no cypher-shell), and the
# fenced ```sh blocks of README's quick start and file-based run,
# docs/local.md, docs/neo4j.md and docs/whisper.md, extracted from the docs and run exactly
# as they are written, then the setup and the three scheduled jobs of
# docs/scheduling.md (crontab, systemd service, Kubernetes CronJob) with
# their absolute directories moved under a temporary one. Exits 0 when every
# command succeeded and every verdict it printed is the one its guide tells
# (the table "The guides' story" below); otherwise it stops at the first
# command that failed, or at the end of the first block whose verdicts
# disagree with the guide, naming the guide, the command and both verdicts.
#
#   scripts/walkthrough.sh
#
# When NEO4J_URI is set that server is used (NEO4J_USER, NEO4J_PASSWORD;
# it must not hold the walkthrough's labels Room and Person or scopes
# building-7, building-8 and whisper yet); otherwise a server is started in the
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

# run_block NAME: runs standard input as a bash script, echoing each command,
# then checks the verdicts its graphcloak commands printed (check_verdicts).
run_block() {
	local script
	script="$(mktemp "$work/block.XXXXXX")"
	cat >"$script"
	say "$1"
	sed 's/^/   | /' "$script" >&2
	recording "$1" bash -euo pipefail "$script"
}

# The guides' story: for each block, a pattern (ERE) on the arguments of a
# graphcloak command it runs, the verdict the guide's text says that command
# prints, and the guide's words for it. A verdict is answer (a finding) or
# noise (a release's dry run without --source-mass: depends, on the mass
# the readings carry; any: the guide promises no verdict, one draw of fresh
# noise decides it); plan's is its per-node forecast by source mass for sources of the
# mass the readings carry (answer@40: resolves 40 units), runs' is the
# VERDICT column of its localisations (answer@noon: and the top community
# changes at noon, docs/whisper.md). Every pattern must
# match a command of its block, and every command of a block that prints a
# verdict (locate, plan, release --dry-run, runs) must match a pattern.
story='
README quick start|^demo|answer|the demo ranks the source communities from the private values and marks the true source'"'"'s (one draw of crypto/rand noise: it is ranked first most of the time, not always)
README file-based run|^plan --graph karate |noise@1|on karate at ε = 1 the per-node release is right about as often as a guess (readings of one unit)
README file-based run|^release .*--dry-run .*--source-mass 1|noise|the dry run forecasts the per-node release of a 1-unit source (--source-mass 1) at chance
README file-based run|^locate --graph karate --release release\.json|noise|locate marks it noise-dominated
README file-based run|^locate .*--private-answer|answer|the private answer publishes the source'"'"'s community
docs/local.md|^locate --graph karate --release local-release\.json$|any|locate says what four sensors of 34 carry: nearly always noise (readings with no source), but one draw of fresh keyed noise in twenty or so reads as a finding
docs/neo4j.md|^plan |answer@40|per-node at ε = 1 resolves sources of 10 units or more; the readings carry 40
docs/neo4j.md|^locate --graph neo4j --scope building-7 --release-run latest$|answer|locate then says so: VERDICT: answer, wing 1 first
docs/neo4j.md|^locate .*--mode stream$|answer|locate then says so: VERDICT: answer, wing 1 first
README against Neo4j|^plan |answer@40|the forecast first: per-node at ε = 1 resolves the 40 units of the readings
README against Neo4j|^locate |answer|locate prints VERDICT: answer with wing 1 first
docs/scheduling.md setup|^plan |answer@40|the forecast before the schedule: per-node at ε = 1 resolves the 40 units
docs/scheduling.md crontab line|^locate |answer|every slot'"'"'s locate prints VERDICT: answer
examples/scheduling/graphcloak-release.service|^locate |answer|every slot'"'"'s locate prints VERDICT: answer
examples/scheduling/cronjob.yaml|^locate |answer|every slot'"'"'s locate prints VERDICT: answer
docs/whisper.md|^plan |answer@100|per-node at ε = 1 resolves sources of 100 units or more; the rumour was whispered 100 times
docs/whisper.md|^locate |answer|every hour'"'"'s localisation is an answer
docs/whisper.md|^runs --scope whisper --last 48|answer@noon|the VERDICT column says answer for every hour; TOP COMMUNITY moves from member 1'"'"'s circle to member 34'"'"'s at noon
'

# recording NAME COMMAND…: runs COMMAND with graphcloak on PATH recording
# each invocation (wrap/graphcloak: its arguments, output and exit code, in
# one directory per invocation), then check_verdicts NAME. The quick start's
# go run ./cmd/graphcloak demo is no graphcloak on PATH: its record is the
# block's standard output.
recording() {
	local name="$1" dir
	shift
	dir="$(mktemp -d "$work/rec/block.XXXXXX")"
	WALKTHROUGH_RECORD="$dir" "$@" | tee "$dir/stdout"
	if [[ "$name" == "README quick start" ]]; then
		mkdir "$dir/go-run-demo"
		printf 'demo\0' >"$dir/go-run-demo/args"
		cp "$dir/stdout" "$dir/go-run-demo/out"
		: >"$dir/go-run-demo/err"
	fi
	check_verdicts "$name" "$dir"
}

# verdict_of DIR [MASS]: the verdict the recorded command printed, or
# nothing when it prints none. plan: answer when its forecast by source
# mass resolves sources of MASS units (some ε), noise otherwise.
verdict_of() {
	local dir="$1" mass="${2:-}" args line
	args="$(tr '\0' ' ' <"$dir/args")"
	case "$args" in
	demo*)
		# The ranking, with the true source's community marked at whatever
		# rank this draw put it (the noise is crypto/rand: no seed makes
		# the first rank certain, so a check of it would fail now and then).
		awk '/^RANK/ { table = 1; next } table && /^$/ { exit }
			table && index($0, "← true source") { marked = 1 }
			END { print (marked ? "answer" : "no ranking") }' "$dir/out"
		;;
	locate\ *--private-answer*)
		grep -q '^private answer: community ' "$dir/out" && echo answer || echo "no answer"
		;;
	locate\ *)
		if line="$(grep -m1 -E '^  "noiseDominated": (true|false)' "$dir/out")"; then
			[[ "$line" == *true* ]] && echo noise || echo answer
		elif grep -q '^VERDICT: answer' "$dir/out" "$dir/err"; then
			echo answer
		elif grep -q '^VERDICT: better than a guess' "$dir/out" "$dir/err"; then
			echo "better than a guess (not an answer)"
		elif grep -q '^WARNING: noise' "$dir/out" "$dir/err"; then
			echo noise
		else
			echo "no verdict"
		fi
		;;
	release\ *--dry-run*)
		# Its verdict line: at chance (noise), an answer at the stated
		# --source-mass, or, with none stated, the forecast by source mass
		# (depends@M: resolves sources of M units or more).
		line="$(grep -m1 '^verdict ' "$dir/out")" || { echo "no verdict"; return; }
		case "$line" in
		*"AT CHANCE"*) echo noise ;;
		*"depends on the source mass"*) echo "depends" ;;
		*) echo answer ;;
		esac
		;;
	plan\ *)
		[[ -n "$mass" ]] || { echo forecast; return; }
		grep -o 'resolves sources of [0-9.e+]* units' "$dir/out" | awk -v m="$mass" '
			{ if ($4 + 0 <= m + 0) found = 1 }
			END { print (found ? "answer" : "noise") }'
		;;
	runs\ *)
		# The VERDICT column of the localisations (runs' table); with
		# MASS noon, also the TOP COMMUNITY column: one community on top
		# before 12:00 and another after, in at least 10 of each 12 hours.
		awk -v noon="$mass" '
			/^STARTED/ { c = index($0, "COMMAND"); e = index($0, "EPOCH"); t = index($0, "TOP COMMUNITY"); v = index($0, "VERDICT"); next }
			v && substr($0, c, 7) == "locate " {
				split(substr($0, v), f, " "); n++; if (f[1] == "noise") bad++
				split(substr($0, t), g, " "); half = (substr($0, e + 11, 2) + 0 >= 12)
				top[half, g[1]]++; hours[half]++
			}
			END {
				if (!n) { print "no verdict"; exit }
				if (bad == n) { print "noise"; exit }
				if (bad) { printf "noise on %d of %d localisations\n", bad, n; exit }
				if (noon != "") {
					for (k in top) { split(k, h, SUBSEP); if (top[k] > best[h[1]]) { best[h[1]] = top[k]; name[h[1]] = h[2] } }
					if (hours[0] != 12 || hours[1] != 12 || best[0] < 10 || best[1] < 10 || name[0] == name[1]) {
						printf "answer, but not one circle before noon and another after (%d hours before noon, %d with %s on top; %d after, %d with %s)\n",
							hours[0], best[0], name[0], hours[1], best[1], name[1]
						exit
					}
				}
				print "answer"
			}' "$dir/out"
		;;
	esac
}

# check_verdicts NAME DIR: every command recorded in DIR that prints a
# verdict prints the one the story gives for block NAME.
check_verdicts() {
	local name="$1" dir="$2" c args pattern want words got mass failed="" matched checked=0
	local -A used=()
	for c in "$dir"/*/; do
		[[ -f "$c/args" ]] || continue
		args="$(tr '\0' ' ' <"$c/args")"
		args="${args% }"
		matched=""
		while IFS='|' read -r block pattern want words; do
			[[ "$block" == "$name" ]] && [[ "$args" =~ $pattern ]] || continue
			matched=1
			used["$pattern"]=1
			mass=""
			[[ "$want" == *@* ]] && mass="${want#*@}" && want="${want%@*}"
			got="$(verdict_of "$c" "$mass")"
			checked=$((checked + 1))
			if [[ "$want" != any && "$got" != "$want" ]]; then
				printf '\nwalkthrough: %s: graphcloak %s\n  printed %s; the guide says %s ("%s")\n' "$name" "$args" "$got" "$want" "$words" >&2
				grep -h -m3 -E '^(VERDICT|WARNING|forecast |per-node at|private answer)' "$c/out" "$c/err" | sed 's/^/  | /' >&2 || true
				failed=1
			fi
		done <<<"$story"
		if [[ -z "$matched" && -n "$(verdict_of "$c")" ]]; then
			printf '\nwalkthrough: %s: graphcloak %s prints a verdict (%s) that the walkthrough'"'"'s story does not state: add what the guide says to the table in scripts/walkthrough.sh\n' \
				"$name" "$args" "$(verdict_of "$c")" >&2
			failed=1
		fi
	done
	while IFS='|' read -r block pattern want words; do
		if [[ "$block" == "$name" && -z "${used[$pattern]:-}" ]]; then
			printf '\nwalkthrough: %s runs no graphcloak command matching /%s/ (the guide says it prints %s: "%s")\n' "$name" "$pattern" "$want" "$words" >&2
			failed=1
		fi
	done <<<"$story"
	[[ -z "$failed" ]] || { echo "walkthrough: $name: verdicts differ from the guide" >&2; exit 1; }
	((checked == 0)) || say "$name: $checked command(s) printed the verdict the guide tells"
}

# An environment with nothing of the user's graphcloak settings.
while IFS='=' read -r name _; do
	[[ "$name" == GRAPHCLOAK_* || "$name" == NEO4J_* && "$name" != NEO4J_URI && "$name" != NEO4J_USER && "$name" != NEO4J_PASSWORD ]] && unset "$name"
done < <(env)
export XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$work/rec"

say "fresh clone of $(git -C "$root" rev-parse --short HEAD)"
git clone --quiet "$root" "$work/graphcloak"
cd "$work/graphcloak"

# README: the quick start (its second line is the test suite that runs this
# script), then graphcloak on PATH as README says, then the file-based run.
sh_blocks README.md "# graphcloak" | grep -v '^bash scripts/test.sh' | run_block "README quick start"
say "go install ./cmd/graphcloak"
GOBIN="$work/bin" go install ./cmd/graphcloak
export PATH="$work/bin:$PATH"
# In front of it on PATH, a graphcloak that records what each call printed
# (recording), and otherwise runs the installed one as it is.
mkdir -p "$work/wrap"
cat >"$work/wrap/graphcloak" <<EOF
#!/usr/bin/env bash
real="$work/bin/graphcloak"
[[ -n "\${WALKTHROUGH_RECORD:-}" ]] || exec "\$real" "\$@"
d="\$(mktemp -d "\$WALKTHROUGH_RECORD/\$(date +%s%N).XXXXXX")"
printf '%s\\0' "\$@" >"\$d/args"
"\$real" "\$@" >"\$d/out" 2>"\$d/err"
rc=\$?
echo "\$rc" >"\$d/rc"
cat "\$d/out"
cat "\$d/err" >&2
exit "\$rc"
EOF
chmod +x "$work/wrap/graphcloak"
export PATH="$work/wrap:$PATH"
sh_blocks README.md "### A file-based run (no database)" | run_block "README file-based run"
# docs/local.md: a local release, sensors adding their own noise (no database).
sh_blocks docs/local.md | run_block "docs/local.md"

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
recording "docs/neo4j.md" bash -euo pipefail "$work/neo4j-guide.sh" <<<"$password"

# README's "Against Neo4j" block, as written (its own projection and scope).
sh_blocks README.md "### Against Neo4j" | "${guide_filter[@]}" >"$work/readme-neo4j.sh"
say "README against Neo4j"
sed 's/^/   | /' "$work/readme-neo4j.sh" >&2
recording "README against Neo4j" bash -euo pipefail "$work/readme-neo4j.sh" <<<"$password"

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
