#!/usr/bin/env python3
"""An independent sensor of graphcloak's local releases, written from
docs/local-sampler.md alone (standard library only; the sampler is
check_vectors.py's, itself written from the same document).

    pysensor.py vectors sensor/testdata/orders.json
        replays the order and refusal vectors (§10); "N order cases OK".
    pysensor.py report --order F --coordinator-key F.pub --key K --policy P \
        --odometer O --node N --value Y
        what `graphcloak sensor report` does: prints one report line, or
        "refused CODE: why" on standard error and exits 3 (7 for
        already-reported, restored or clock-behind, 5 for daily-cap).
"""
import base64
import datetime
import hashlib
import hmac
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_vectors import (Words, dgauss, grid_index, hkdf_expand, hkdf_extract, lp,  # noqa: E402
                           report_mac_key, i64be, u32)
import struct  # noqa: E402

# ---- Ed25519 verification (RFC 8032 §5.1.7, its §6 reference code).
P = 2 ** 255 - 19
D = -121665 * pow(121666, P - 2, P) % P
Q = 2 ** 252 + 27742317777372353535851937790883648493
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _add(a, b):
    A = (a[1] - a[0]) * (b[1] - b[0]) % P
    B = (a[1] + a[0]) * (b[1] + b[0]) % P
    C = 2 * a[3] * b[3] * D % P
    Dd = 2 * a[2] * b[2] % P
    E, F, G, H = B - A, Dd - C, Dd + C, B + A
    return (E * F % P, G * H % P, F * G % P, E * H % P)


def _mul(s, pt):
    acc = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            acc = _add(acc, pt)
        pt = _add(pt, pt)
        s >>= 1
    return acc


def _eq(a, b):
    return (a[0] * b[2] - b[0] * a[2]) % P == 0 and (a[1] * b[2] - b[1] * a[2]) % P == 0


def _recover_x(y, sign):
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


_GY = 4 * pow(5, P - 2, P) % P
_GX = _recover_x(_GY, 0)
BASE = (_GX, _GY, 1, _GX * _GY % P)


def _decompress(s):
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % P)


def ed25519_verify(pub, msg, sig):
    if len(pub) != 32 or len(sig) != 64:
        return False
    A, R = _decompress(pub), _decompress(sig[:32])
    if A is None or R is None:
        return False
    s = int.from_bytes(sig[32:], "little")
    if s >= Q:
        return False
    h = int.from_bytes(hashlib.sha512(sig[:32] + pub + msg).digest(), "little") % Q
    return _eq(_mul(s, BASE), _add(R, _mul(h, A)))


# ---- §7.1: strict JSON.

class Refused(Exception):
    def __init__(self, code, why=""):
        super().__init__(f"{code}: {why}")
        self.code = code


def _no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise Refused("bad-order", "a member appears twice")
    return dict(pairs)


def strict_loads(text):
    return json.loads(text, object_pairs_hook=_no_dups)


ORDER_MEMBERS = {"version", "kind", "graph", "tau", "alpha", "epsilon", "delta", "sensitivity", "certificateDigest",
                 "effectiveSensitivity", "rho", "sampler", "releaseId", "scope", "epoch", "notBefore", "notAfter", "nodes",
                 "coordinatorKey"}
ORDER_OPTIONAL = {"keyFingerprint"}
GRAPH_MEMBERS = {"nodeCount", "relationshipCount", "sha256"}
SAMPLER_MEMBERS = {"version", "gridExponent", "gridVariance", "sigma"}


def members(obj, required, optional=frozenset()):
    if not isinstance(obj, dict) or not (required <= set(obj) <= required | optional):
        raise Refused("bad-order", f"members {sorted(obj) if isinstance(obj, dict) else obj}")


def order_span(text):
    """The envelope's members, and the exact text of its order member's value."""
    dec = json.JSONDecoder(object_pairs_hook=_no_dups)
    i = 0
    ws = " \t\n\r"
    while i < len(text) and text[i] in ws:
        i += 1
    if i >= len(text) or text[i] != "{":
        raise Refused("bad-order", "not an envelope")
    i += 1
    env, span = {}, None
    while True:
        while text[i] in ws:
            i += 1
        if text[i] == "}" and not env:
            i += 1
            break
        key, i = json.decoder.scanstring(text, i + 1)
        while text[i] in ws:
            i += 1
        if text[i] != ":":
            raise Refused("bad-order", "not an envelope")
        i += 1
        while text[i] in ws:
            i += 1
        value, end = dec.raw_decode(text, i)
        if key in env:
            raise Refused("bad-order", "a member appears twice")
        env[key] = value
        if key == "order":
            span = text[i:end]
        i = end
        while text[i] in ws:
            i += 1
        if text[i] == ",":
            i += 1
            continue
        if text[i] == "}":
            i += 1
            break
        raise Refused("bad-order", "not an envelope")
    if text[i:].strip(ws):
        raise Refused("bad-order", "trailing data")
    if set(env) != {"order", "signature"} or span is None:
        raise Refused("bad-order", "envelope members")
    return env, span


def parse_time(s):
    if not isinstance(s, str) or len(s) < 20 or s[10] != "T":
        raise Refused("bad-order", f"time {s!r}")
    try:
        return datetime.datetime.fromisoformat(s)
    except ValueError:
        raise Refused("bad-order", f"time {s!r}")


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x):
    return (isinstance(x, (int, float)) and not isinstance(x, bool))


def verify_order(pub, data):
    try:
        text = data.decode("utf-8")
        env, span = order_span(text)
    except (UnicodeDecodeError, ValueError, IndexError):
        raise Refused("bad-order", "not an envelope")
    sig = env["signature"]
    try:
        raw = base64.b64decode(sig, validate=True) if isinstance(sig, str) else b""
    except ValueError:
        raw = b""
    if len(raw) != 64 or base64.b64encode(raw).decode() != sig:
        raise Refused("bad-order", "signature is not 64 bytes of standard base64")
    o = env["order"]
    members(o, ORDER_MEMBERS, ORDER_OPTIONAL)
    members(o["graph"], GRAPH_MEMBERS)
    members(o["sampler"], SAMPLER_MEMBERS)
    if not ed25519_verify(pub, span.encode("utf-8"), raw):
        raise Refused("bad-signature", "the signature does not verify")
    s = o["sampler"]
    rid = o["releaseId"]

    def fin_pos(x):
        return is_num(x) and x > 0 and math.isfinite(x)
    ok = (o["kind"] == "graphcloak.epoch-order" and o["version"] == 1 and is_int(o["version"])
          and s["version"] == 3 and is_int(s["gridVariance"]) and 1 <= s["gridVariance"] <= 2 ** 50
          and is_int(s["gridExponent"]) and -60 <= s["gridExponent"] <= 60
          and isinstance(rid, str) and rid.startswith("rel-") and len(rid) >= 36 and len(rid) % 2 == 0
          and all(c in "0123456789abcdefABCDEF" for c in rid[4:])
          and isinstance(o["scope"], str) and o["scope"] and isinstance(o["epoch"], str) and o["epoch"]
          and fin_pos(o["epsilon"]) and is_num(o["delta"]) and 0 < o["delta"] < 1
          and fin_pos(o["sensitivity"]) and fin_pos(o["effectiveSensitivity"]) and fin_pos(o["rho"])
          and isinstance(o["nodes"], list) and o["nodes"] and all(isinstance(n, str) and n for n in o["nodes"])
          and len(set(o["nodes"])) == len(o["nodes"])
          and all(isinstance(x, str) and len(x.encode("utf-8")) <= 256 for x in
                  [o["scope"], o["epoch"], rid, o["graph"]["sha256"], o["certificateDigest"], o["coordinatorKey"],
                   o.get("keyFingerprint", ""), o["kind"]] + o["nodes"]))
    if not ok:
        raise Refused("bad-order", "Order.Check")
    o["_nb"], o["_na"] = parse_time(o["notBefore"]), parse_time(o["notAfter"])
    o["_sha"] = hashlib.sha256(span.encode("utf-8")).hexdigest()  # what tells a retry: the signed bytes
    if not o["_nb"] < o["_na"]:
        raise Refused("bad-order", "empty window")
    return o


# ---- §9: the policy and its checks.

POLICY_REQUIRED = {"kind", "version", "node", "alpha", "sigmaFloor", "maxEpsilonPerDay", "dayDelta", "maxReportsPerDay",
                   "maxValiditySeconds"}


def load_policy(obj, node):
    if not isinstance(obj, dict) or not (POLICY_REQUIRED <= set(obj) <= POLICY_REQUIRED | {"sensitivityBound", "graphSha256", "releaseNodes"}):
        raise Refused("no-policy", "policy members")
    if obj["kind"] != "graphcloak.sensor-policy" or obj["version"] != 1 or obj["node"] != node:
        raise Refused("no-policy", "not this node's policy")
    if not (obj["alpha"] > 0 and obj["sigmaFloor"] > 0 and obj["maxEpsilonPerDay"] > 0 and 0 < obj["dayDelta"] < 1):
        raise Refused("no-policy", "incomplete policy")
    return obj


def sigma(o):
    s = o["sampler"]
    return math.ldexp(math.sqrt(s["gridVariance"]), -s["gridExponent"])


def cost(p, o):
    own = p.get("sensitivityBound", 0) or math.sqrt(2) * p["alpha"]
    delta = max(o["sensitivity"], own)
    k = o["sampler"]["gridExponent"]
    n = max(len(o["nodes"]), o["graph"]["nodeCount"], p.get("releaseNodes", 0), 1)
    eff = max(o["effectiveSensitivity"], delta + math.ldexp(1, -k) * math.sqrt(n))
    sg = sigma(o)
    return math.nextafter(max(o["rho"], eff * eff / (2 * sg * sg)), math.inf)


def day_epsilon(p, rho):
    return rho + 2 * math.sqrt(rho * math.log(1 / p["dayDelta"]))


def draw(o, ks, node, value):
    q = grid_index(value, o["sampler"]["gridExponent"])
    nb = node.encode()
    info = (b"graphcloak/noise/v3" + lp(o["releaseId"].encode()) + lp(o["scope"].encode()) + lp(o["epoch"].encode())
            + u32(3) + struct.pack(">Q", o["sampler"]["gridVariance"]) + u32(o["sampler"]["gridExponent"]) + lp(nb) + u32(0))
    vk = hkdf_expand(hkdf_extract(b"graphcloak/noise/salt/v1", ks), info)
    grid = q + dgauss(Words(vk), o["sampler"]["gridVariance"])
    msg = (lp(b"graphcloak/report/v2") + lp(o["releaseId"].encode()) + lp(o["scope"].encode()) + lp(o["epoch"].encode())
           + lp(o["_sha"].encode()) + lp(nb) + i64be(grid))
    mac = hmac.new(report_mac_key(ks), msg, hashlib.sha256).hexdigest()
    return {"kind": "graphcloak.report", "version": 2, "node": node, "scope": o["scope"], "epoch": o["epoch"],
            "releaseId": o["releaseId"], "orderSha256": o["_sha"], "grid": grid,
            "value": math.ldexp(grid, -o["sampler"]["gridExponent"]), "mac": mac}


def report(pub, ks, node, policy, odometer, env, value, now):
    """One report, or Refused. odometer is the dict of §11's file; it is
    updated (the caller makes it durable before releasing the report)."""
    p = load_policy(policy, node)
    o = verify_order(pub, env)
    if now < o["_nb"]:
        raise Refused("early")
    if now >= o["_na"]:
        raise Refused("expired")
    if node not in o["nodes"]:
        raise Refused("not-in-order")
    if p.get("graphSha256") and p["graphSha256"] != o["graph"]["sha256"]:
        raise Refused("graph")
    if (o["_na"] - o["_nb"]).total_seconds() > p["maxValiditySeconds"]:
        raise Refused("validity")
    if sigma(o) < p["sigmaFloor"]:
        raise Refused("sigma-floor")
    if odometer is None:
        raise Refused("no-odometer")
    if odometer.get("kind") != "graphcloak.sensor-odometer" or odometer.get("node") != node:
        raise Refused("bad-odometer")
    entries = odometer["entries"]
    if entries and now < max(datetime.datetime.fromisoformat(e["at"]) for e in entries):
        raise Refused("clock-behind")
    barrier = odometer.get("refuseBefore")
    if barrier and o["_nb"] < datetime.datetime.fromisoformat(barrier):
        raise Refused("restored")
    prev = next((e for e in entries if e["releaseId"] == o["releaseId"]
                 or (e["scope"] == o["scope"] and e["epoch"] == o["epoch"])), None)
    if prev is not None:
        if prev.get("orderSha256") != o["_sha"]:
            raise Refused("already-reported")
        k = o["sampler"]["gridExponent"]  # the recorded report: nothing drawn, the value unread
        rep = {"kind": "graphcloak.report", "version": prev.get("reportVersion", 1), "node": node, "scope": prev["scope"],
               "epoch": prev["epoch"], "releaseId": prev["releaseId"], "grid": prev["grid"],
               "value": math.ldexp(prev["grid"], -k), "mac": prev["mac"]}
        if rep["version"] >= 2:
            rep["orderSha256"] = prev["orderSha256"]
        return rep, None
    try:
        grid_index(value, o["sampler"]["gridExponent"])
    except (ValueError, OverflowError):
        raise Refused("bad-value")
    rep = draw(o, ks, node, value)
    day = now.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d")
    rho = cost(p, o)
    if barrier and datetime.datetime.fromisoformat(barrier).astimezone(datetime.timezone.utc).strftime("%Y-%m-%d") == day:
        raise Refused("daily-cap")
    today = [e for e in odometer["entries"] if e["day"] == day]
    if p["maxReportsPerDay"] > 0 and len(today) >= p["maxReportsPerDay"]:
        raise Refused("daily-cap")
    if not day_epsilon(p, sum(e["rho"] for e in today) + rho) <= p["maxEpsilonPerDay"]:
        raise Refused("daily-cap")
    odometer["entries"].append({"releaseId": o["releaseId"], "scope": o["scope"], "epoch": o["epoch"], "day": day, "rho": rho,
                                "grid": rep["grid"], "at": now.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                                "orderSha256": o["_sha"], "mac": rep["mac"], "reportVersion": 2})
    return rep, rho


def go_float(x):
    """x as Go's encoding/json writes a float64."""
    if x == 0:
        return "0"
    r = repr(float(x))
    if 1e-6 <= abs(x) < 1e21:
        if "e" in r:
            import decimal
            r = format(decimal.Decimal(r), "f")
        return r[:-2] if r.endswith(".0") else r
    m, e = r.split("e")  # Go writes e-07 as e-7, keeps e+21
    if e[0] == "-" and len(e) == 3 and e[1] == "0":
        e = "-" + e[2]
    return f"{m}e{e}"


def report_line(rep):
    order = ',"orderSha256":%s' % json.dumps(rep["orderSha256"]) if "orderSha256" in rep else ""
    return ('{"kind":%s,"version":%d,"node":%s,"scope":%s,"epoch":%s,"releaseId":%s%s,"grid":%d,"value":%s,"mac":%s}' % (
        json.dumps(rep["kind"]), rep["version"], json.dumps(rep["node"], ensure_ascii=False),
        json.dumps(rep["scope"], ensure_ascii=False), json.dumps(rep["epoch"], ensure_ascii=False),
        json.dumps(rep["releaseId"]), order, rep["grid"], go_float(rep["value"]), json.dumps(rep["mac"])))


def vectors(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    pub = bytes.fromhex(doc["coordinatorPublicKey"])
    master = bytes.fromhex(doc["masterKey"])
    node = doc["node"]
    ks = hkdf_expand(hkdf_extract(b"graphcloak/sensor/salt/v1", master), b"graphcloak/sensor-key/v1" + lp(node.encode()))
    errors = []
    if ks.hex() != doc["sensorKey"]:
        errors.append("sensor key differs")
    od = {"kind": "graphcloak.sensor-odometer", "version": 1, "node": node, "entries": []}
    for c in doc["cases"]:
        now = datetime.datetime.fromisoformat(c["now"])
        try:
            rep, rho = report(pub, ks, node, doc["policy"], od, c["envelope"].encode("utf-8"), c["value"], now)
            got, got_rep = "report", rep
            if rho is None:
                rho = next(e["rho"] for e in od["entries"] if e["releaseId"] == rep["releaseId"])
        except Refused as r:
            got, got_rep, rho = r.code, None, None
        if got != c["result"]:
            errors.append(f"{c['name']}: {got}, the vectors say {c['result']}")
        elif got_rep is not None and (got_rep != c["report"] or rho != c["rho"]):
            errors.append(f"{c['name']}: report {got_rep} ρ {rho}, the vectors say {c['report']} ρ {c['rho']}")
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    print(f"{len(doc['cases'])} order cases OK")


def cli_report(args):
    opts = dict(zip(args[::2], args[1::2]))
    with open(opts["--order"], "rb") as f:
        env = f.read()
    pub = bytes.fromhex(open(opts["--coordinator-key"]).read().strip())
    ks = bytes.fromhex(open(opts["--key"]).read().strip())
    node = opts["--node"]
    codes = {"already-reported": 7, "restored": 7, "clock-behind": 7, "daily-cap": 5}
    try:
        with open(opts["--policy"], encoding="utf-8") as f:
            policy = strict_loads(f.read())
    except (OSError, ValueError, Refused):
        print("refused no-policy", file=sys.stderr)
        sys.exit(3)
    path = os.path.realpath(opts["--odometer"])
    try:
        with open(path, encoding="utf-8") as f:
            od = strict_loads(f.read())
    except FileNotFoundError:
        od = None
    except (OSError, ValueError, Refused):
        print("refused bad-odometer", file=sys.stderr)
        sys.exit(3)
    try:
        rep, rho = report(pub, ks, node, policy, od, env, float(opts["--value"]),
                          datetime.datetime.now(datetime.timezone.utc))
    except Refused as r:
        print(f"refused {r}", file=sys.stderr)
        sys.exit(codes.get(r.code, 3))
    if rho is not None:  # durable before the report leaves (§11)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
        with os.fdopen(fd, "w") as f:
            json.dump(od, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        dfd = os.open(os.path.dirname(path), os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)
    print(report_line(rep))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "vectors":
        vectors(sys.argv[2])
    elif len(sys.argv) > 2 and sys.argv[1] == "report":
        cli_report(sys.argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
