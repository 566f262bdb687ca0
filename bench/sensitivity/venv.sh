# Sourced by the bench scripts: sets $root and $venv, a venv under
# .cache/bench-venv (gitignored) with numpy and scipy, and the datasets.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.cache/bench-venv"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check numpy scipy
bash "$root/scripts/fetch-datasets.sh" >/dev/null
