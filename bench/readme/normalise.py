"""Compare two commands' JSON outputs after normalising what must differ
between two runs; print the paths that still differ (nothing: the same).

    python3 normalise.py OLD.json NEW.json

Normalised (replaced by a placeholder in both, so that their presence and
type are still compared), and nothing else:
  - durations, measured by the clock (CLOCK keys, at any depth);
  - fresh identifiers drawn from crypto/rand at each run: run ids
    ("run-<UTC time>-<12 hex>", which also name a release's epoch when
    none is given) and release ids ("rel-<32 hex>"), matched by value;
  - the private answer's draw (DRAW paths): the published community is
    drawn with fresh randomness at each run (the ε-DP mechanism), and the
    posterior printed beside it is that of the drawn community.
The readings, the noise key, the ledger and the release file are the same
for both binaries (compare.sh), so nothing else may differ.
"""
import json
import re
import sys

CLOCK = {"computeMillis", "seconds"}
FRESH_ID = re.compile(r"^(run-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{12}|rel-[0-9a-f]{32})$")
DRAW = {".answer.community", ".answer.communityId", ".answer.posterior"}


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        return text  # not JSON (empty, or an error's text): compared as is


def norm(v, path="", key=""):
    if path in DRAW:
        return "<draw>"
    if key in CLOCK and isinstance(v, (int, float)):
        return "<clock>"
    if isinstance(v, str) and FRESH_ID.match(v):
        return "<fresh id>"
    if isinstance(v, dict):
        return {k: norm(x, "%s.%s" % (path, k), k) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x, "%s[%d]" % (path, i), key) for i, x in enumerate(v)]
    return v


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append("+%s.%s" % (path, k))
            elif k not in b:
                out.append("-%s.%s" % (path, k))
            else:
                diff(a[k], b[k], "%s.%s" % (path, k), out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s[%d]" % (path, i), out)
    elif a != b or type(a) is not type(b):
        out.append("%s: %s → %s" % (path or ".", short(a), short(b)))


def short(v):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 60 else s[:57] + "..."


def main():
    a, b = (norm(load(p)) for p in sys.argv[1:3])
    out = []
    diff(a, b, "", out)
    if out:
        print("; ".join(out))
        sys.exit(1)


main()
