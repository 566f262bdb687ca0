#!/usr/bin/env python3
"""Independent check of graphcloak's local sampler test vectors.

Recomputes every field of sensor/testdata/vectors.json from its inputs with
the Python standard library only (hashlib, hmac), ChaCha20 (RFC 8439) and the
discrete Gaussian sampler written from docs/local-sampler.md. Exit status 0
and "N vectors OK" when every field matches; 1 and the differences otherwise.

    python3 sensor/testdata/check_vectors.py sensor/testdata/vectors.json
"""
import hashlib
import hmac
import json
import math
import struct
import sys


def u32(x):
    return struct.pack(">I", x & 0xFFFFFFFF)


def lp(b):
    return u32(len(b)) + b


def hkdf_extract(salt, ikm):
    return hmac.new(salt, ikm, hashlib.sha256).digest()


def hkdf_expand(prk, info, length=32):
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:length]


def sensor_key(master, node):
    return hkdf_expand(hkdf_extract(b"graphcloak/sensor/salt/v1", master), b"graphcloak/sensor-key/v1" + lp(node))


def report_mac_key(ks):
    return hmac.new(ks, b"graphcloak/report-mac/v1", hashlib.sha256).digest()


def value_key_info(c, node):
    return (b"graphcloak/noise/v3" + lp(c["releaseId"].encode()) + lp(c["scope"].encode()) + lp(c["epoch"].encode())
            + u32(3) + struct.pack(">Q", c["gridVariance"]) + u32(c["gridExponent"]) + lp(node) + u32(0))


# ---- ChaCha20 (RFC 8439 §2.3), 256-bit key, 96-bit zero nonce, counter from 0.

def _rotl(x, n):
    return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF


def _qr(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = _rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter):
    init = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + list(struct.unpack("<8I", key)) + [counter, 0, 0, 0]
    s = init[:]
    for _ in range(10):
        _qr(s, 0, 4, 8, 12); _qr(s, 1, 5, 9, 13); _qr(s, 2, 6, 10, 14); _qr(s, 3, 7, 11, 15)
        _qr(s, 0, 5, 10, 15); _qr(s, 1, 6, 11, 12); _qr(s, 2, 7, 8, 13); _qr(s, 3, 4, 9, 14)
    return struct.pack("<16I", *[(a + b) & 0xFFFFFFFF for a, b in zip(s, init)])


class Words:
    """The keystream as little-endian 64-bit words; counts what is read."""

    def __init__(self, key):
        self.key, self.block, self.buf, self.used = key, 0, b"", 0

    def next(self):
        if not self.buf:
            self.buf = chacha20_block(self.key, self.block)
            self.block += 1
        w, self.buf = struct.unpack("<Q", self.buf[:8])[0], self.buf[8:]
        self.used += 1
        return w


# ---- The sampler (docs/local-sampler.md §5), exact integers.

def uniform(src, m):
    v = m - 1
    if v == 0:
        return 0
    b = v.bit_length()
    w = (b + 63) // 64
    top = b - 64 * (w - 1)
    while True:
        x = src.next() & ((1 << top) - 1)
        for _ in range(w - 1):
            x = (x << 64) | src.next()
        if x <= v:
            return x


def bern_exp_frac(src, n, d):  # Bernoulli(exp(-n/d)), 0 <= n <= d
    k = 1
    while uniform(src, k * d) < n:
        k += 1
    return k % 2 == 1


def bern_exp(src, n, d):  # Bernoulli(exp(-n/d)), n >= 0
    while n >= d:
        if not bern_exp_frac(src, 1, 1):
            return False
        n -= d
    return bern_exp_frac(src, n, d)


def dlap(src, t):
    while True:
        u = uniform(src, t)
        if not bern_exp_frac(src, u, t):
            continue
        v = 0
        while bern_exp_frac(src, 1, 1):
            v += 1
        x = u + t * v
        neg = uniform(src, 2) < 1
        if neg and x == 0:
            continue
        return -x if neg else x


def dgauss(src, s2):
    t = math.isqrt(s2) + 1
    while True:
        y = dlap(src, t)
        if bern_exp(src, (abs(y) * t - s2) ** 2, 2 * s2 * t * t):
            return y


def grid_index(y, k):
    x = math.ldexp(y, k)
    if math.isnan(x) or abs(x) > 2 ** 61:
        raise ValueError("value out of range")
    f = math.floor(abs(x))
    q = f + (1 if abs(x) - f >= 0.5 else 0)  # half away from zero; abs(x) - f is exact
    return -q if x < 0 else q


def i64be(x):
    return struct.pack(">q", x)


def mac_message(c, grid):
    return (lp(b"graphcloak/report/v2") + lp(c["releaseId"].encode()) + lp(c["scope"].encode()) + lp(c["epoch"].encode())
            + lp(c["orderSha256"].encode()) + lp(c["node"].encode()) + i64be(grid))


def check_case(c):
    master, node = bytes.fromhex(c["masterKey"]), c["node"].encode()
    ks = sensor_key(master, node)
    info = value_key_info(c, node)
    vk = hkdf_expand(hkdf_extract(b"graphcloak/noise/salt/v1", ks), info)
    words = Words(vk)
    first = ["%016x" % words.next() for _ in range(8)]
    src = Words(vk)
    z = dgauss(src, c["gridVariance"])
    q = grid_index(c["rawValue"], c["gridExponent"])
    grid = q + z
    msg = mac_message(c, grid)
    got = {
        "sensorKey": ks.hex(), "reportMacKey": report_mac_key(ks).hex(), "valueKeyInfo": info.hex(), "valueKey": vk.hex(),
        "keystreamWords": first, "wordsConsumed": src.used, "z": z, "gridIndex": q, "grid": grid,
        "value": math.ldexp(float(grid), -c["gridExponent"]), "macMessage": msg.hex(),
        "mac": hmac.new(report_mac_key(ks), msg, hashlib.sha256).hexdigest(),
    }
    return [f"{c['name']}: {k} = {v!r}, file says {c[k]!r}" for k, v in got.items() if c[k] != v]


def check_aggregate(a):
    h = hashlib.sha256()
    zsum = zsq = 0
    master = bytes.fromhex(a["masterKey"])
    for i in range(a["count"]):
        node = (a["nodePrefix"] + str(i)).encode()
        c = dict(a, node=node.decode())
        vk = hkdf_expand(hkdf_extract(b"graphcloak/noise/salt/v1", sensor_key(master, node)), value_key_info(c, node))
        z = dgauss(Words(vk), a["gridVariance"])
        h.update(i64be(z))
        zsum += z
        zsq += z * z
    got = {"zSum": zsum, "zSumSquares": zsq, "zSha256": h.hexdigest()}
    return [f"{a['name']}: {k} = {v!r}, file says {a[k]!r}" for k, v in got.items() if a[k] != v]


def self_test():
    # RFC 8439 §2.3.2 block function test vector.
    key = bytes(range(32))
    init = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + list(struct.unpack("<8I", key)) + [1, 0x09000000, 0x4A000000, 0]
    s = init[:]
    for _ in range(10):
        _qr(s, 0, 4, 8, 12); _qr(s, 1, 5, 9, 13); _qr(s, 2, 6, 10, 14); _qr(s, 3, 7, 11, 15)
        _qr(s, 0, 5, 10, 15); _qr(s, 1, 6, 11, 12); _qr(s, 2, 7, 8, 13); _qr(s, 3, 4, 9, 14)
    out = struct.pack("<16I", *[(a + b) & 0xFFFFFFFF for a, b in zip(s, init)])
    assert out.hex().startswith("10f1e7e4d13b5915500fdd1fa32071c4"), "ChaCha20 RFC 8439 2.3.2"
    # RFC 5869 A.1 (HKDF-SHA256).
    prk = hkdf_extract(bytes.fromhex("000102030405060708090a0b0c"), bytes([0x0b] * 22))
    okm = hkdf_expand(prk, bytes.fromhex("f0f1f2f3f4f5f6f7f8f9"), 42)
    assert okm.hex().startswith("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"), "HKDF RFC 5869 A.1"
    assert grid_index(2.5, 0) == 3 and grid_index(-2.5, 0) == -3 and grid_index(0.49999999999999994, 0) == 0


def main():
    self_test()
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    errors = []
    for c in doc["cases"]:
        errors += check_case(c)
    for a in doc.get("aggregates", []):
        errors += check_aggregate(a)
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    print(f"{len(doc['cases'])} vectors OK, {len(doc.get('aggregates', []))} aggregates OK")


if __name__ == "__main__":
    main()
