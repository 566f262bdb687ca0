package privacy

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/chacha20"
)

var updateGolden = flag.Bool("update-golden", false, "write testdata/golden_noise_vN.json for the current SamplerVersion (only when it changes)")

// The fast per-value derivation equals RFC 5869 HKDF from crypto/hkdf with
// the documented info encoding, built here independently.
func TestDeriveMatchesHKDF(t *testing.T) {
	var k Key
	for i := range k {
		k[i] = byte(3*i + 1)
	}
	const rid = "rel-00112233445566778899aabbccddeeff"
	d, err := newDeriver(&k, noiseParams{version: 2, releaseID: rid, scope: "scope-α", epoch: "2026-11-21T06:00", s2: 123456789, k: 17})
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"n1", "", "a much longer node key with spaces and ünïcode", "n1"} {
		for _, stream := range []uint32{0, 1, 7} {
			var info bytes.Buffer
			info.WriteString("graphcloak/noise/v2")
			lp := func(s string) {
				fmt.Fprintf(&info, "%c%c%c%c%s", byte(len(s)>>24), byte(len(s)>>16), byte(len(s)>>8), byte(len(s)), s)
			}
			lp(rid)
			lp("scope-α")
			lp("2026-11-21T06:00")
			info.Write([]byte{0, 0, 0, 2})                         // sampler version
			info.Write([]byte{0, 0, 0, 0, 0x07, 0x5b, 0xcd, 0x15}) // 123456789
			info.Write([]byte{0, 0, 0, 17})
			lp(node)
			info.Write([]byte{byte(stream >> 24), byte(stream >> 16), byte(stream >> 8), byte(stream)})
			want, err := hkdf.Key(sha256.New, k[:], []byte("graphcloak/noise/salt/v1"), info.String(), 32)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.derive(node, stream); !bytes.Equal(got, want) {
				t.Fatalf("node %q stream %d: derive = %x, HKDF = %x", node, stream, got, want)
			}
		}
	}
}

// The keystream is read as little-endian words of ChaCha20 with a zero
// nonce (checked against x/crypto directly).
func TestChaChaSourceWords(t *testing.T) {
	key := bytes.Repeat([]byte{0x42}, 32)
	var s chachaSource
	s.reset(key)
	c, _ := chacha20.NewUnauthenticatedCipher(key, make([]byte, 12))
	ks := make([]byte, 200*8)
	c.XORKeyStream(ks, ks)
	for i := 0; i < 200; i++ {
		var w uint64
		for b := 7; b >= 0; b-- {
			w = w<<8 | uint64(ks[8*i+b])
		}
		if got := s.Uint64(); got != w {
			t.Fatalf("word %d: %x, want %x", i, got, w)
		}
	}
}

type goldenCase struct {
	Key   string   `json:"key"`
	Scope string   `json:"scope"`
	Epoch string   `json:"epoch"`
	S2    uint64   `json:"s2"`
	K     int      `json:"k"`
	Nodes []string `json:"nodes"`
	// ReleaseID is set for sampler version 2 and later.
	ReleaseID string  `json:"releaseId,omitempty"`
	Noise     []int64 `json:"noise"`
	Sample    int     `json:"samplerVersion"`
}

func goldenCases(version int) []goldenCase {
	nodes := []string{"a", "b", "c", "node-42", "x"}
	cs := []goldenCase{
		{Key: strings.Repeat("00", 32), Scope: "s", Epoch: "1", S2: 1, K: 0, Nodes: nodes},
		{Key: strings.Repeat("0f", 32), Scope: "building-7", Epoch: "2026-01-01", S2: 1 << 20, K: 10, Nodes: nodes},
		{Key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", Scope: "g", Epoch: "run-9", S2: 1000003, K: 33, Nodes: nodes},
		{Key: strings.Repeat("ff", 32), Scope: "g", Epoch: "run-9", S2: 1 << 50, K: -3, Nodes: nodes},
	}
	if version >= 2 {
		for i := range cs {
			cs[i].ReleaseID = fmt.Sprintf("rel-%032x", 0x1f2e3d4c5b6a7988+i)
		}
	}
	return cs
}

// Golden vectors: key + parameters → the first noise values, one frozen
// file per sampler version (Unmask regenerates every version it accepts).
// A change of the stream must bump SamplerVersion and add a new golden
// file. The reference (math/big sampler, key from crypto/hkdf directly)
// must agree as well.
func TestGoldenNoise(t *testing.T) {
	for _, version := range []int{1, 2, SamplerVersion} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) { checkGolden(t, version) })
	}
}

func checkGolden(t *testing.T, version int) {
	path := filepath.Join("testdata", fmt.Sprintf("golden_noise_v%d.json", version))
	params := func(c goldenCase) noiseParams {
		return noiseParams{version: version, releaseID: c.ReleaseID, scope: c.Scope, epoch: c.Epoch, s2: c.S2, k: c.K}
	}
	compute := func(c goldenCase) []int64 {
		var k Key
		if _, err := hex.Decode(k[:], []byte(c.Key)); err != nil {
			t.Fatal(err)
		}
		z, err := keyedNoise(&k, params(c), c.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	if *updateGolden && version == SamplerVersion {
		cs := goldenCases(version)
		for i := range cs {
			cs[i].Noise = compute(cs[i])
			cs[i].Sample = version
		}
		b, _ := json.MarshalIndent(cs, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v", err)
	}
	var cs []goldenCase
	if err := json.Unmarshal(data, &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(goldenCases(version)) {
		t.Fatalf("golden file has %d cases", len(cs))
	}
	for i, c := range cs {
		if c.Sample != version {
			t.Fatalf("case %d is for sampler version %d", i, c.Sample)
		}
		got := compute(c)
		for j := range got {
			if got[j] != c.Noise[j] {
				t.Fatalf("case %d node %q: noise %d, golden %d — the stream changed: bump SamplerVersion", i, c.Nodes[j], got[j], c.Noise[j])
			}
		}
		// Independent path: crypto/hkdf.Key + math/big sampler.
		var k Key
		hex.Decode(k[:], []byte(c.Key))
		d, _ := newDeriver(&k, params(c))
		for j, node := range c.Nodes {
			info := string(d.infoFor(node, 0))
			ikm := k[:]
			if version >= 3 { // IKM = K_s = HKDF(key, sensor salt, "graphcloak/sensor-key/v1" ‖ lp(node))
				lp := string([]byte{byte(len(node) >> 24), byte(len(node) >> 16), byte(len(node) >> 8), byte(len(node))}) + node
				ikm, _ = hkdf.Key(sha256.New, k[:], []byte("graphcloak/sensor/salt/v1"), "graphcloak/sensor-key/v1"+lp, 32)
			}
			dk, _ := hkdf.Key(sha256.New, ikm, []byte(hkdfSalt), info, 32)
			var src chachaSource
			src.reset(dk)
			if y := dgaussBig(&src, new(big.Int).SetUint64(c.S2)); y.Int64() != c.Noise[j] {
				t.Fatalf("case %d node %q: reference %v, golden %d", i, node, y, c.Noise[j])
			}
		}
	}
}

// Different nodes, epochs, scopes, streams, σ̃² or grids give different
// keys; across many epochs, the noise of two nodes is uncorrelated, and
// one node's noise is uncorrelated across consecutive epochs.
func TestStreamIndependence(t *testing.T) {
	var k Key
	copy(k[:], "independence")
	base := func(scope, epoch string, s2 uint64, grid int, node string, stream uint32) string {
		d, _ := newDeriver(&k, noiseParams{scope: scope, epoch: epoch, s2: s2, k: grid})
		return hex.EncodeToString(d.derive(node, stream))
	}
	seen := map[string]string{}
	for name, v := range map[string]string{
		"base":   base("s", "e", 100, 5, "n", 0),
		"node":   base("s", "e", 100, 5, "m", 0),
		"epoch":  base("s", "e2", 100, 5, "n", 0),
		"scope":  base("s2", "e", 100, 5, "n", 0),
		"sigma":  base("s", "e", 101, 5, "n", 0),
		"grid":   base("s", "e", 100, 6, "n", 0),
		"stream": base("s", "e", 100, 5, "n", 1),
		// Length prefixes make these differ although the concatenation is equal.
		"shift1": base("s", "ee", 100, 5, "n", 0),
		"shift2": base("se", "e", 100, 5, "n", 0),
		"release": func() string {
			d, _ := newDeriver(&k, noiseParams{releaseID: "rel-1", scope: "s", epoch: "e", s2: 100, k: 5})
			return hex.EncodeToString(d.derive("n", 0))
		}(),
		"v1": func() string {
			d, _ := newDeriver(&k, noiseParams{version: 1, scope: "s", epoch: "e", s2: 100, k: 5})
			return hex.EncodeToString(d.derive("n", 0))
		}(),
	} {
		if other, dup := seen[v]; dup {
			t.Errorf("%s and %s derive the same key", name, other)
		}
		seen[v] = name
	}
	const epochs = 20000
	a := make([]float64, epochs)
	b := make([]float64, epochs)
	for e := 0; e < epochs; e++ {
		z, err := keyedNoise(&k, noiseParams{scope: "s", epoch: fmt.Sprint(e), s2: 10000, k: 3}, []string{"a", "b"})
		if err != nil {
			t.Fatal(err)
		}
		a[e], b[e] = float64(z[0]), float64(z[1])
	}
	corr := func(x, y []float64) float64 {
		var mx, my, sxy, sxx, syy float64
		for i := range x {
			mx += x[i]
			my += y[i]
		}
		mx /= float64(len(x))
		my /= float64(len(y))
		for i := range x {
			sxy += (x[i] - mx) * (y[i] - my)
			sxx += (x[i] - mx) * (x[i] - mx)
			syy += (y[i] - my) * (y[i] - my)
		}
		return sxy / math.Sqrt(sxx*syy)
	}
	// Under independence the sample correlation has sd ≈ 1/√N.
	tol := 5 / math.Sqrt(epochs)
	if c := corr(a, b); math.Abs(c) > tol {
		t.Errorf("corr(node a, node b) over epochs = %g, |·| > %g", c, tol)
	}
	if c := corr(a[1:], a[:epochs-1]); math.Abs(c) > tol {
		t.Errorf("corr(node a at e, e+1) = %g, |·| > %g", c, tol)
	}
}

// The parallel split does not change the noise.
func TestKeyedNoiseWorkersAgree(t *testing.T) {
	var k Key
	copy(k[:], "workers")
	keys := make([]string, 5000)
	for i := range keys {
		keys[i] = fmt.Sprint("k", i)
	}
	p := noiseParams{scope: "s", epoch: "e", s2: 1 << 30, k: 12}
	one, _ := keyedNoiseWorkers(&k, p, keys, 1)
	for _, w := range []int{2, 3, 7} {
		many, _ := keyedNoiseWorkers(&k, p, keys, w)
		for i := range one {
			if one[i] != many[i] {
				t.Fatalf("workers=%d: value %d differs", w, i)
			}
		}
	}
}

func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "noise.key")
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if k == (Key{}) {
		t.Fatal("GenerateKey returned the zero key")
	}
	if err := WriteKeyFile(path, k); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", st.Mode().Perm())
	}
	if err := WriteKeyFile(path, k); err == nil {
		t.Error("WriteKeyFile overwrote an existing file")
	}
	got, err := LoadKey(path)
	if err != nil || got != k {
		t.Fatalf("LoadKey: %v (equal %v)", err, got == k)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		os.Chmod(path, mode)
		_, err := LoadKey(path)
		var pe *KeyPermissionError
		if !errors.As(err, &pe) {
			t.Errorf("mode %o: err = %v, want *KeyPermissionError", mode, err)
		}
	}
	os.Chmod(path, 0o600)
	for name, content := range map[string]string{"short": "abcd\n", "nonhex": strings.Repeat("zz", 32), "long": strings.Repeat("00", 33)} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		if _, err := LoadKey(p); !errors.Is(err, ErrBadKeyFile) {
			t.Errorf("%s: err = %v, want ErrBadKeyFile", name, err)
		}
	}
	// Keys never print.
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%x %v %+v %#v %s", k, k, k, k, k), fmt.Sprintf("%v", KeyedNoise(k)),
		fmt.Sprintf("%+v", ReleaseRequest{Noise: KeyedNoise(k)})} {
		if strings.Contains(s, hex.EncodeToString(k[:4])) || strings.Contains(s, fmt.Sprint(k[0], " ", k[1])) {
			t.Errorf("key material printed: %s", s)
		}
	}
}
