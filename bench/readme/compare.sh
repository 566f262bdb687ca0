#!/usr/bin/env bash
# README's file-based run ("### A file-based run (no database)"), command by
# command as written, with two binaries: the JSON on standard output (-o
# json on every command), the exit codes and the names of the files each
# command writes must be the same. Each binary runs in its own directory
# (examples/ linked in, configuration and state isolated there).
#
#   bash bench/readme/compare.sh OLD_REV [NEW_REV]   (NEW_REV default: the work tree)
#
# builds both from git (git archive, so no checkout is touched; OLD_BIN and
# NEW_BIN name ready binaries instead) and prints one line per command,
# "same" or the fields that differ, then a total; exit 1 when any differ.
# What must differ between two runs is normalised before comparing
# (normalise.py says which fields and why); nothing else is.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
old_rev="${1:?usage: compare.sh OLD_REV [NEW_REV]}"
new_rev="${2:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

build() { # build REV OUT: the command built from git revision REV ("" = the work tree)
	if [[ -z "$1" ]]; then
		(cd "$root" && go build -o "$2" ./cmd/graphcloak)
		return
	fi
	mkdir -p "$work/src-$1"
	git -C "$root" archive "$1" | tar -x -C "$work/src-$1"
	(cd "$work/src-$1" && go build -o "$2" ./cmd/graphcloak)
}
old_bin="${OLD_BIN:-}"
new_bin="${NEW_BIN:-}"
mkdir -p "$work/bin"
if [[ -z "$old_bin" ]]; then old_bin="$work/bin/old"; build "$old_rev" "$old_bin"; fi
if [[ -z "$new_bin" ]]; then new_bin="$work/bin/new"; build "$new_rev" "$new_bin"; fi

# README's block as the tests read it (shCommands in cmd/graphcloak): a
# " #" starts a comment, a trailing "\" continues the command.
mapfile -t cmds < <(awk '
	/^### A file-based run/ { inside = 1; next }
	inside && /^```sh$/ { block = 1; next }
	block && /^```$/ { exit }
	block {
		line = $0
		if ((j = index(line, " #")) > 0) line = substr(line, 1, j - 1)
		gsub(/^[ \t]+|[ \t]+$/, "", line)
		if (line ~ /\\$/) { cur = cur substr(line, 1, length(line) - 1) " "; next }
		cur = cur line
		if (cur != "") print cur
		cur = ""
	}' "$root/README.md")
if (( ${#cmds[@]} < 6 )); then
	echo "found ${#cmds[@]} commands in README's file-based run" >&2
	exit 2
fi

# Command i of each binary starts from the same files: the directory the
# old binary left after command i-1, copied for the new one (so the new
# binary also reads what the old one wrote: its key, ledger, release
# file). Without that the release's fresh release id would make the noise,
# and everything located from it, differ.
mkdir -p "$work/old/run" "$work/old/config" "$work/old/state" "$work/out"
ln -s "$root/examples" "$work/old/run/examples"
run() { # run NAME BIN I ARGV...: command I in $work/NAME, outputs under $work/out
	local name="$1" bin="$2" i="$3" dir="$work/$1"
	shift 3
	set +e
	(cd "$dir/run" && HOME="$dir" XDG_CONFIG_HOME="$dir/config" XDG_STATE_HOME="$dir/state" \
		"$bin" "$@" -o json >"$work/out/$name.$i.json" 2>"$work/out/$name.$i.err")
	echo $? >"$work/out/$name.$i.code"
	set -e
	(cd "$dir" && find run config state -newer "$work/out/stamp" ! -type d | sort) >"$work/out/$name.$i.files"
}
differ=0
i=0
for c in "${cmds[@]}"; do
	i=$((i + 1))
	read -ra argv <<<"$c"
	[[ "${argv[0]}" == graphcloak ]] || { echo "not a graphcloak command: $c" >&2; exit 2; }
	rm -rf "$work/new" && cp -a "$work/old" "$work/new"
	touch "$work/out/stamp" # what each command writes is newer
	run old "$old_bin" "$i" "${argv[@]:1}"
	run new "$new_bin" "$i" "${argv[@]:1}"
	oc="$(cat "$work/out/old.$i.code")" nc="$(cat "$work/out/new.$i.code")"
	d="$(python3 "$root/bench/readme/normalise.py" "$work/out/old.$i.json" "$work/out/new.$i.json")" || true
	if [[ "$oc" != "$nc" ]]; then d="exit $oc → $nc${d:+; $d}"; fi
	if ! cmp -s "$work/out/old.$i.files" "$work/out/new.$i.files"; then
		d="${d:+$d; }files written differ: $(diff "$work/out/old.$i.files" "$work/out/new.$i.files" | grep '^[<>]' | tr '\n' ' ' || true)"
	fi
	if [[ -z "$d" ]]; then
		echo "same (exit $oc): $c"
	else
		differ=$((differ + 1))
		echo "DIFFERS (exit $oc/$nc): $c"
		echo "    $d"
	fi
done
echo "$differ of ${#cmds[@]} commands differ (old $old_rev, new ${new_rev:-work tree})"
(( differ == 0 ))
