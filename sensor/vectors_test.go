package sensor

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/keyednoise"
)

var updateVectors = flag.Bool("update-vectors", false, "rewrite testdata/vectors.json from the Go implementation")

const vectorsPath = "testdata/vectors.json"

// vectorCase is one test vector of docs/local-sampler.md: inputs, then
// every intermediate value a firmware implementation can compare.
type vectorCase struct {
	Name string `json:"name"`
	// Inputs.
	MasterKey    string  `json:"masterKey"`
	Node         string  `json:"node"`
	ReleaseID    string  `json:"releaseId"`
	Scope        string  `json:"scope"`
	Epoch        string  `json:"epoch"`
	GridExponent int     `json:"gridExponent"`
	GridVariance uint64  `json:"gridVariance"`
	RawValue     float64 `json:"rawValue"`
	// OrderSHA256 is the digest of the order's signed bytes the report
	// answers (an input: the vectors do not carry the orders).
	OrderSHA256 string `json:"orderSha256"`
	// Outputs.
	SensorKey      string   `json:"sensorKey"`
	ReportMACKey   string   `json:"reportMacKey"`
	ValueKeyInfo   string   `json:"valueKeyInfo"`
	ValueKey       string   `json:"valueKey"`
	KeystreamWords []string `json:"keystreamWords"` // the first 8 words, 16 hex digits each
	WordsConsumed  int      `json:"wordsConsumed"`
	Z              int64    `json:"z"`
	GridIndex      int64    `json:"gridIndex"` // round(rawValue·2^k)
	Grid           int64    `json:"grid"`      // gridIndex + z
	Value          float64  `json:"value"`     // grid·2^-k
	MACMessage     string   `json:"macMessage"`
	MAC            string   `json:"mac"`
}

type vectorFile struct {
	Description string          `json:"description"`
	Cases       []vectorCase    `json:"cases"`
	Aggregates  []aggregateCase `json:"aggregates"`
}

// aggregateCase is many draws of one order: Z for the nodes
// nodePrefix + "0" … nodePrefix + (count−1), summarised by their sum, sum
// of squares and the SHA-256 of their i64be concatenation — rare branches
// of the sampler's rejection loops are exercised.
type aggregateCase struct {
	Name         string `json:"name"`
	MasterKey    string `json:"masterKey"`
	NodePrefix   string `json:"nodePrefix"`
	Count        int    `json:"count"`
	ReleaseID    string `json:"releaseId"`
	Scope        string `json:"scope"`
	Epoch        string `json:"epoch"`
	GridExponent int    `json:"gridExponent"`
	GridVariance uint64 `json:"gridVariance"`
	ZSum         int64  `json:"zSum"`
	ZSumSquares  uint64 `json:"zSumSquares"`
	ZSHA256      string `json:"zSha256"`
}

func aggregateInputs() []aggregateCase {
	m0 := "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	return []aggregateCase{
		{Name: "2000 draws, σ̃² = 7", MasterKey: m0, NodePrefix: "node-", Count: 2000, ReleaseID: "rel-" + strings.Repeat("ab", 16), Scope: "agg", Epoch: "1", GridExponent: 5, GridVariance: 7},
		{Name: "1000 draws, σ̃² = 2^33 + 1", MasterKey: strings.Repeat("c3", 32), NodePrefix: "m", Count: 1000, ReleaseID: "rel-" + strings.Repeat("cd", 16), Scope: "agg", Epoch: "2", GridExponent: 12, GridVariance: 1<<33 + 1},
	}
}

// computeAggregate draws with the master key (keyednoise.Fill, the
// central path), not with each sensor key.
func computeAggregate(t testing.TB, a aggregateCase) aggregateCase {
	var master [32]byte
	hex.Decode(master[:], []byte(a.MasterKey))
	nodes := make([]string, a.Count)
	for i := range nodes {
		nodes[i] = fmt.Sprint(a.NodePrefix, i)
	}
	z := make([]int64, a.Count)
	p := keyednoise.Params{Version: 3, ReleaseID: a.ReleaseID, Scope: a.Scope, Epoch: a.Epoch, GridVariance: a.GridVariance, GridExponent: a.GridExponent}
	if err := keyednoise.Fill(&master, p, nodes, z); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	a.ZSum, a.ZSumSquares = 0, 0
	for _, x := range z {
		a.ZSum += x
		a.ZSumSquares += uint64(x * x)
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(x)))
	}
	a.ZSHA256 = hex.EncodeToString(h.Sum(nil))
	return a
}

type countingSource struct {
	src   keyednoise.Source
	words int
}

func (c *countingSource) Uint64() uint64 { c.words++; return c.src.Uint64() }

// vectorInputs are the cases: edge cases of the grid, the variance (1, 2,
// odd, 2^50), the rounding (halves away from zero), negative k, a zero and
// a negative value, and a node key in UTF-8.
func vectorInputs() []vectorCase {
	const m0 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	rid := "rel-00112233445566778899aabbccddeeff"
	cases := []vectorCase{
		{Name: "typical", MasterKey: m0, Node: "room-12", ReleaseID: rid, Scope: "building-7", Epoch: "2026-11-27T06", GridExponent: 16, GridVariance: 1 << 40, RawValue: 21.375},
		{Name: "typical, another node", MasterKey: m0, Node: "room-13", ReleaseID: rid, Scope: "building-7", Epoch: "2026-11-27T06", GridExponent: 16, GridVariance: 1 << 40, RawValue: 21.375},
		{Name: "calibrated grid", MasterKey: m0, Node: "room-12", ReleaseID: "rel-" + strings.Repeat("5a", 16), Scope: "building-7", Epoch: "2026-11-27T07", GridExponent: 20, GridVariance: 4398046511104 + 987654321, RawValue: 3.14159},
		{Name: "unit variance, half rounds away from zero", MasterKey: strings.Repeat("ff", 32), Node: "n1", ReleaseID: rid, Scope: "s", Epoch: "1", GridExponent: 0, GridVariance: 1, RawValue: -2.5},
		{Name: "variance 2, +half", MasterKey: strings.Repeat("00", 32), Node: "n2", ReleaseID: rid, Scope: "s", Epoch: "1", GridExponent: 3, GridVariance: 2, RawValue: 0.0625},
		{Name: "variance 9, zero", MasterKey: strings.Repeat("0f", 32), Node: "n3", ReleaseID: rid, Scope: "s", Epoch: "2", GridExponent: 1, GridVariance: 9, RawValue: 0},
		{Name: "odd variance, fine grid", MasterKey: m0, Node: "sensor-α", ReleaseID: rid, Scope: "whisper", Epoch: "week-48", GridExponent: 33, GridVariance: 1000003, RawValue: 1e-6},
		{Name: "maximum variance, negative grid exponent", MasterKey: m0, Node: "capteur-é/Ω 7", ReleaseID: "rel-" + strings.Repeat("e3", 20), Scope: "g", Epoch: "run-9", GridExponent: -3, GridVariance: 1 << 50, RawValue: -12345.678},
	}
	for i := range cases {
		sum := sha256.Sum256([]byte("an order of " + cases[i].Name))
		cases[i].OrderSHA256 = hex.EncodeToString(sum[:])
	}
	return cases
}

func computeVector(t testing.TB, c vectorCase) vectorCase {
	var master [32]byte
	if _, err := hex.Decode(master[:], []byte(c.MasterKey)); err != nil {
		t.Fatal(err)
	}
	ks := SensorKey(master, c.Node)
	c.SensorKey = hex.EncodeToString(ks[:])
	c.ReportMACKey = hex.EncodeToString(ReportMACKey(ks))
	p := keyednoise.Params{Version: 3, ReleaseID: c.ReleaseID, Scope: c.Scope, Epoch: c.Epoch, GridVariance: c.GridVariance, GridExponent: c.GridExponent}
	d, err := keyednoise.NewSensorDeriver(&ks, p)
	if err != nil {
		t.Fatal(err)
	}
	c.ValueKeyInfo = hex.EncodeToString(d.Info(c.Node, 0))
	vk := d.Derive(c.Node, 0)
	c.ValueKey = hex.EncodeToString(vk)
	var st keyednoise.Stream
	st.Reset(vk)
	c.KeystreamWords = nil
	for i := 0; i < 8; i++ {
		c.KeystreamWords = append(c.KeystreamWords, fmt.Sprintf("%016x", st.Uint64()))
	}
	st.Reset(vk)
	cs := &countingSource{src: &st}
	c.Z = keyednoise.NewGaussian(c.GridVariance).Sample(cs)
	c.WordsConsumed = cs.words
	if z, err := keyednoise.SensorNoise(&ks, p, c.Node); err != nil || z != c.Z {
		t.Fatalf("%s: SensorNoise %d, %v", c.Name, z, err)
	}
	q, err := gridIndex(c.RawValue, c.GridExponent)
	if err != nil {
		t.Fatal(err)
	}
	c.GridIndex = q
	o := Order{ReleaseID: c.ReleaseID, Scope: c.Scope, Epoch: c.Epoch, Sampler: Sampler{Version: 3, GridExponent: c.GridExponent, GridVariance: c.GridVariance}}
	rep, err := drawReport(o, c.OrderSHA256, Key(ks), c.Node, q)
	if err != nil {
		t.Fatal(err)
	}
	c.Grid, c.Value, c.MAC = rep.Grid, rep.Value, rep.MAC
	c.MACMessage = hex.EncodeToString(reportMessage(&rep))
	if c.Grid != q+c.Z || c.Value != math.Ldexp(float64(c.Grid), -c.GridExponent) {
		t.Fatalf("%s: grid %d value %v", c.Name, c.Grid, c.Value)
	}
	return c
}

// The test vectors of docs/local-sampler.md are what this implementation
// computes (regenerate with -update-vectors only when the specification
// changes, which must bump the sampler version).
func TestVectors(t *testing.T) {
	if *updateVectors {
		f := vectorFile{Description: "graphcloak local sampler (version 3) test vectors: docs/local-sampler.md. " +
			"Hex strings are lowercase; keystreamWords are little-endian uint64 words of the ChaCha20 keystream; " +
			"wordsConsumed counts the words the discrete Gaussian sampler read to produce z; orderSha256 (an input) is the digest of the signed order the report (version 2) answers, covered by its MAC. Checked by sensor/testdata/check_vectors.py."}
		for _, c := range vectorInputs() {
			f.Cases = append(f.Cases, computeVector(t, c))
		}
		for _, a := range aggregateInputs() {
			f.Aggregates = append(f.Aggregates, computeAggregate(t, a))
		}
		b, _ := json.MarshalIndent(f, "", "  ")
		if err := os.WriteFile(vectorsPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var f vectorFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) != len(vectorInputs()) {
		t.Fatalf("%d cases, want %d", len(f.Cases), len(vectorInputs()))
	}
	for _, c := range f.Cases {
		if got := computeVector(t, c); !reflect.DeepEqual(got, c) {
			t.Errorf("%s: computed\n%+v\nfile\n%+v", c.Name, got, c)
		}
	}
	if len(f.Aggregates) != len(aggregateInputs()) {
		t.Fatalf("%d aggregates, want %d", len(f.Aggregates), len(aggregateInputs()))
	}
	for _, a := range f.Aggregates {
		if got := computeAggregate(t, a); got != a {
			t.Errorf("%s: computed %+v, file %+v", a.Name, got, a)
		}
	}
	// Every vector verifies as a report.
	for _, c := range f.Cases {
		mk, _ := hex.DecodeString(c.ReportMACKey)
		r := Report{Kind: ReportKind, Version: ReportVersion, Node: c.Node, Scope: c.Scope, Epoch: c.Epoch, ReleaseID: c.ReleaseID, OrderSHA256: c.OrderSHA256,
			Grid: c.Grid, Value: c.Value, MAC: c.MAC}
		if err := r.Verify(mk, c.GridExponent); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

// An independent implementation — pure Python (hashlib, hmac; ChaCha20
// and the sampler written from docs/local-sampler.md) — recomputes every
// vector. It shows that the specification is complete enough for firmware.
func TestVectorsIndependentPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the independent Python check of testdata/vectors.json cannot run here (CI has python3)")
	}
	out, err := exec.Command(py, filepath.Join("testdata", "check_vectors.py"), vectorsPath).CombinedOutput()
	if err != nil {
		t.Fatalf("check_vectors.py: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), fmt.Sprintf("%d vectors OK, %d aggregates OK", len(vectorInputs()), len(aggregateInputs()))) {
		t.Fatalf("check_vectors.py did not check every vector:\n%s", out)
	}
}
