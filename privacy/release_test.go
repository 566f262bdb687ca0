package privacy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func testValues(n int) ([]string, []float64) {
	keys := make([]string, n)
	vals := make([]float64, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("node-%d", i)
		vals[i] = 0.123456789*float64(i%17) + 1e-3*float64(i)
	}
	return keys, vals
}

func testKey() Key {
	var k Key
	copy(k[:], "release test key")
	return k
}

func TestReleaseUnmaskRoundTrip(t *testing.T) {
	ctx := context.Background()
	l, _ := newTestLedger(t)
	keys, vals := testValues(3000)
	const sens = 0.05
	rel, err := Release(ctx, ReleaseRequest{Keys: keys, Values: vals, Sensitivity: sens, Epsilon: 1, Delta: 1e-5,
		Noise: KeyedNoise(testKey()), Ledger: l, Scope: "g", Epoch: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	m := rel.Meta
	gamma := math.Ldexp(1, -m.GridExponent)
	// Grid choice and effective sensitivity (documented defaults).
	if m.Sigma/gamma < 1024 || gamma*math.Sqrt(3000) > sens/1024 {
		t.Errorf("grid 2^-%d: σ/γ = %g, γ√n/Δ = %g", m.GridExponent, m.Sigma/gamma, gamma*math.Sqrt(3000)/sens)
	}
	if want := sens + gamma*math.Sqrt(3000); m.EffectiveSensitivity < want || m.EffectiveSensitivity > want*(1+1e-15) {
		t.Errorf("Δ_eff = %v, want %v", m.EffectiveSensitivity, want)
	}
	// σ and ρ use the discrete Gaussian's proven accounting.
	if m.Accounting != AccountingCKS20 || m.Mechanism != "discrete" || !m.Keyed || m.N != 3000 || m.SamplerVersion != SamplerVersion {
		t.Errorf("meta %+v", m)
	}
	if want := m.EffectiveSensitivity * m.EffectiveSensitivity / (2 * float64(m.GridVariance) * gamma * gamma); m.Rho < want*(1-1e-15) || m.Rho > want*(1+1e-12) {
		t.Errorf("ρ = %v, want Δ_eff²/(2σ̃²γ²) = %v", m.Rho, want)
	}
	if d := CKSDelta(m.Rho, 1); d > 1e-5 {
		t.Errorf("release is not (1, 1e-5)-DP by CKS: δ = %g", d)
	}
	ds, _ := DiscreteSigma(m.EffectiveSensitivity, 1, 1e-5)
	if m.Sigma < ds || m.Sigma > ds*(1+1e-6) {
		t.Errorf("σ = %v, want ⌈σ_discrete(Δ_eff)⌉ = %v", m.Sigma, ds)
	}
	if s := math.Sqrt(float64(m.GridVariance)) * gamma; math.Abs(s-m.Sigma) > 1e-12*s {
		t.Errorf("σ = %v, γ√σ̃² = %v", m.Sigma, s)
	}
	// Released values are γ·r and the noise has the right scale.
	var ss float64
	for i := range rel.Grid {
		if rel.Values[i] != math.Ldexp(float64(rel.Grid[i]), -m.GridExponent) {
			t.Fatalf("value %d is not γ·r", i)
		}
		z := float64(rel.Grid[i]) - math.Round(vals[i]/gamma)
		ss += z * z
	}
	if sd := math.Sqrt(ss/3000) * gamma; math.Abs(sd/m.Sigma-1) > 0.1 {
		t.Errorf("noise sd %g, σ %g", sd, m.Sigma)
	}
	// The key holder recovers round(y/γ)·γ exactly.
	got, err := Unmask(testKey(), rel)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != math.Round(vals[i]/gamma)*gamma || math.Abs(got[i]-vals[i]) > gamma/2 {
			t.Fatalf("unmask %d: %v, true %v (γ = %g)", i, got[i], vals[i], gamma)
		}
	}
	// A wrong key is refused by the recorded key fingerprint; without the
	// fingerprint (a release from an older build) it recovers nothing useful.
	other := testKey()
	other[31] ^= 1
	if _, err := Unmask(other, rel); !errors.Is(err, ErrWrongKey) {
		t.Errorf("wrong key: %v, want ErrWrongKey", err)
	}
	old := *rel
	old.Meta.KeyFingerprint = ""
	bad, _ := Unmask(other, &old)
	wrong := 0
	for i := range bad {
		if bad[i] != got[i] {
			wrong++
		}
	}
	if wrong < 2900 {
		t.Errorf("wrong key reproduced %d of 3000 values", 3000-wrong)
	}
	// Through the release file.
	path := filepath.Join(t.TempDir(), "release.json")
	if err := WriteReleaseFile(path, rel); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReleaseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Meta, rel.Meta) {
		t.Errorf("meta changed through the file: %+v", back.Meta)
	}
	got2, err := Unmask(testKey(), back)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got2 {
		if got2[i] != got[i] {
			t.Fatalf("unmask from file differs at %d", i)
		}
	}
	data, _ := os.ReadFile(path)
	for _, v := range vals[1:20] {
		// A JSON number equal to a true value (the noise is random, so a
		// mere substring may occur by chance, e.g. in 10.0173).
		if strings.Contains(string(data), ": "+fmt.Sprint(v)+",") || strings.Contains(string(data), ": "+fmt.Sprint(v)+"\n") {
			t.Errorf("the release file contains the true value %v", v)
		}
	}
}

// One derived key produces one released value: a retry of the same
// (scope, epoch), even with different values, is refused before any
// noise is drawn, and the ledger is not charged again.
func TestReleaseRetryNeverRedraws(t *testing.T) {
	ctx := context.Background()
	l, _ := newTestLedger(t)
	keys, vals := testValues(50)
	src := &counting{src: testStream("retry")}
	req := ReleaseRequest{Keys: keys, Values: vals, Sensitivity: 0.1, Epsilon: 0.5, Delta: 1e-6,
		Noise: NoiseSource{src: src}, Ledger: l, Scope: "g", Epoch: "e1"}
	if _, err := Release(ctx, req); err != nil {
		t.Fatal(err)
	}
	used := src.used
	before, _ := l.Balance(ctx, "g")
	req.Values = append([]float64(nil), vals...)
	req.Values[3] += 0.25
	rel, err := Release(ctx, req)
	if !errors.Is(err, ErrAlreadyCharged) || rel != nil {
		t.Fatalf("retry: rel %v, err %v; want ErrAlreadyCharged", rel, err)
	}
	if src.used != used {
		t.Errorf("retry drew %d words of noise", src.used-used)
	}
	after, _ := l.Balance(ctx, "g")
	if after[0] != before[0] {
		t.Errorf("retry changed the ledger: %+v → %+v", before[0], after[0])
	}
}

// Two keyed releases of different readings with the
// same key, scope and epoch, charged on two ledgers, used to share their
// noise, so their difference was exactly y − y' to one grid step. With a
// fresh release id per release the two noises are independent: the
// difference minus (y − y') has the spread of the difference of two
// independent discrete Gaussians, σ√2 per node.
func TestKeyedReleasesOnTwoLedgersDoNotCancel(t *testing.T) {
	ctx := context.Background()
	const n = 400
	keys, a := testValues(n)
	b := make([]float64, n)
	for i := range b {
		b[i] = a[(i+7)%n] + 0.5
	}
	l1, _ := newTestLedger(t)
	l2, _ := newTestLedger(t)
	req := ReleaseRequest{Keys: keys, Values: a, Sensitivity: 0.1, Epsilon: 1, Delta: 1e-6,
		Noise: KeyedNoise(testKey()), Ledger: l1, Scope: "g", Epoch: "E7"}
	r1, err := Release(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Values, req.Ledger = b, l2
	r2, err := Release(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Meta.ReleaseID == r2.Meta.ReleaseID {
		t.Fatalf("two releases share the release id %q", r1.Meta.ReleaseID)
	}
	for _, r := range []*Released{r1, r2} {
		if err := checkReleaseID("test", r.Meta.ReleaseID); err != nil {
			t.Fatal(err)
		}
	}
	gamma := math.Ldexp(1, -r1.Meta.GridExponent)
	var ss float64
	far := 0
	for i := range keys {
		d := (r1.Values[i] - r2.Values[i]) - (a[i] - b[i])
		ss += d * d
		if math.Abs(d) > 2*gamma {
			far++
		}
	}
	rms := math.Sqrt(ss / n)
	want := r1.Meta.Sigma * math.Sqrt2
	// n = 400 draws: the sample RMS is within ±15% of σ√2 with
	// probability far above 1 − 1e-6 (chi-square with 400 d.o.f.).
	if rms < 0.85*want || rms > 1.15*want {
		t.Errorf("difference minus (y − y'): RMS %.4g, want σ√2 = %.4g (noise shared or not Gaussian)", rms, want)
	}
	if far < n*9/10 {
		t.Errorf("only %d of %d nodes differ from y − y' by more than two grid steps", far, n)
	}
	// Both still unmask exactly with the key.
	for _, c := range []struct {
		rel  *Released
		vals []float64
	}{{r1, a}, {r2, b}} {
		got, err := Unmask(testKey(), c.rel)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-c.vals[i]) > gamma/2 {
				t.Fatalf("unmask node %d: %v, want %v", i, got[i], c.vals[i])
			}
		}
	}
}

func TestReleaseBudgetExhaustedDrawsNothing(t *testing.T) {
	ctx := context.Background()
	l, _ := newTestLedger(t)
	keys, vals := testValues(10)
	src := &counting{src: testStream("budget")}
	req := ReleaseRequest{Keys: keys, Values: vals, Sensitivity: 1, Epsilon: 1, Delta: 1e-5,
		Noise: NoiseSource{src: src}, Ledger: l, Scope: "g", Epoch: "e1"}
	if _, err := Release(ctx, req); err != nil {
		t.Fatal(err)
	}
	used := src.used
	req.Epoch = "e2" // the whole (1, 1e-5) budget is already spent
	_, err := Release(ctx, req)
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("second release: %v, want *BudgetError", err)
	}
	if src.used != used {
		t.Errorf("refused release drew %d words", src.used-used)
	}
}

func TestReleaseValidation(t *testing.T) {
	ctx := context.Background()
	keys, vals := testValues(5)
	good := func(l Ledger) ReleaseRequest {
		return ReleaseRequest{Keys: keys, Values: vals, Sensitivity: 1, Epsilon: 1, Delta: 1e-5, Ledger: l, Scope: "g", Epoch: "e"}
	}
	cases := map[string]func(r *ReleaseRequest){
		"no keys":          func(r *ReleaseRequest) { r.Keys, r.Values = nil, nil },
		"length mismatch":  func(r *ReleaseRequest) { r.Values = vals[:4] },
		"duplicate key":    func(r *ReleaseRequest) { r.Keys = []string{"a", "b", "a", "c", "d"} },
		"empty key":        func(r *ReleaseRequest) { r.Keys = []string{"a", "", "b", "c", "d"} },
		"NaN value":        func(r *ReleaseRequest) { r.Values = []float64{1, math.NaN(), 0, 0, 0} },
		"Inf value":        func(r *ReleaseRequest) { r.Values = []float64{1, math.Inf(-1), 0, 0, 0} },
		"no ledger":        func(r *ReleaseRequest) { r.Ledger = nil },
		"no scope":         func(r *ReleaseRequest) { r.Scope = "" },
		"no epoch":         func(r *ReleaseRequest) { r.Epoch = "" },
		"epsilon":          func(r *ReleaseRequest) { r.Epsilon = 0 },
		"delta":            func(r *ReleaseRequest) { r.Delta = 1 },
		"sensitivity":      func(r *ReleaseRequest) { r.Sensitivity = math.NaN() },
		"analytic":         func(r *ReleaseRequest) { r.Mechanism = MechanismAnalytic },
		"classic ε ≥ 1":    func(r *ReleaseRequest) { r.Mechanism = MechanismClassic },
		"grid too fine":    func(r *ReleaseRequest) { r.GridExponent = 40 },
		"grid exponent 99": func(r *ReleaseRequest) { r.GridExponent = 99 },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			l, _ := newTestLedger(t)
			r := good(l)
			mutate(&r)
			_, err := Release(ctx, r)
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want *ArgumentError", err)
			}
			if strings.Contains(err.Error(), "NaN") && name != "sensitivity" {
				t.Errorf("error prints a secret value: %v", err)
			}
			if b, _ := l.Balance(ctx, ""); len(b) != len(testScopes) || b[0].Releases+b[1].Releases+b[2].Releases+b[3].Releases != 0 {
				t.Errorf("refused request charged the ledger: %+v", b)
			}
		})
	}
	// Classic below ε = 1 is accepted when the CKS bound confirms it.
	l, _ := newTestLedger(t)
	r := good(l)
	r.Mechanism, r.Epsilon = MechanismClassic, 0.5
	rel, err := Release(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Meta.Mechanism != "classic" || CKSDelta(rel.Meta.Rho, 0.5) > 1e-5 {
		t.Errorf("classic meta %+v", rel.Meta)
	}
	// Crypto noise cannot be unmasked.
	r = good(l)
	r.Epoch = "crypto"
	r.Epsilon = 0.01
	rel, err = Release(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Meta.Keyed {
		t.Error("crypto release marked keyed")
	}
	if _, err := Unmask(testKey(), rel); err == nil {
		t.Error("Unmask of a crypto/rand release succeeded")
	}
}

// smallRelease is a keyed release of four values, charged on a fresh
// test ledger.
func smallRelease(t *testing.T) *Released {
	t.Helper()
	l, _ := newTestLedger(t)
	keys, vals := testValues(4)
	rel, err := Release(context.Background(), ReleaseRequest{Keys: keys, Values: vals, Sensitivity: 1, Epsilon: 0.2, Delta: 1e-5,
		Noise: KeyedNoise(testKey()), Ledger: l, Scope: "g", Epoch: "e"})
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestReleaseFileRejectsTampering(t *testing.T) {
	rel := smallRelease(t)
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteReleaseFile(path, rel); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for name, s := range map[string]string{
		"format":  strings.Replace(string(data), "graphcloak-release", "other", 1),
		"value":   strings.Replace(string(data), `"value": `, `"value": 1`, 1),
		"n":       strings.Replace(string(data), `"n": 4`, `"n": 5`, 1),
		"unknown": strings.Replace(string(data), `"format"`, `"extra": 1, "format"`, 1),
		"json":    string(data[:len(data)-5]),
	} {
		p := filepath.Join(t.TempDir(), name+".json")
		os.WriteFile(p, []byte(s), 0o644)
		var fe *ReleaseFileError
		if _, err := ReadReleaseFile(p); !errors.As(err, &fe) {
			t.Errorf("%s: err = %v, want *ReleaseFileError", name, err)
		}
	}
}

func FuzzReadRelease(f *testing.F) {
	f.Add([]byte(`{"format":"graphcloak-release","version":1,"meta":{"n":1,"gridExponent":3},"rows":[{"key":"a","grid":8,"value":1}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rel, err := parseRelease(data)
		if err != nil {
			return
		}
		if checkReleased(rel) != nil {
			t.Fatal("parseRelease accepted an inconsistent release")
		}
	})
}

func ExampleRelease() {
	dir, _ := os.MkdirTemp("", "graphcloak-example")
	defer os.RemoveAll(dir)
	ledger, err := CreateFileLedger(context.Background(), filepath.Join(dir, "ledger.json"), Budget{Epsilon: 2, Delta: 1e-6}, FileLedgerOptions{}, "building-7")
	if err != nil {
		panic(err)
	}
	var key Key // use GenerateKey in practice
	rel, err := Release(context.Background(), ReleaseRequest{
		Keys: []string{"a", "b", "c"}, Values: []float64{0.5, 0.25, 0},
		Sensitivity: 0.01, Epsilon: 1, Delta: 1e-6,
		Noise: KeyedNoise(key), Ledger: ledger, Scope: "building-7", Epoch: "2026-11-21",
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("σ = %.5f, ρ = %.5f, accounting %s, grid 2^-%d\n", rel.Meta.Sigma, rel.Meta.Rho, rel.Meta.Accounting, rel.Meta.GridExponent)
	back, _ := Unmask(key, rel)
	fmt.Println("key holder recovers:", back)
	bal, _ := ledger.Balance(context.Background(), "building-7")
	fmt.Printf("spent ρ = %.5f of %.5f\n", bal[0].RhoSpent, bal[0].RhoBudget)
	// Output:
	// σ = 0.04534, ρ = 0.02436, accounting zcdp-cks20, grid 2^-18
	// key holder recovers: [0.5 0.25 0]
	// spent ρ = 0.02436 of 0.08815
}

// PrepareReleaseFile locks the path until Commit or Abort: a second
// prepare of the same path waits (its busy callback called once) and
// gives up with *ReleaseFileBusyError at its deadline, leaving no
// temporary file; a cancelled wait reports the cancellation; after the
// first commits, the second gets the lock at once. Another path is never
// blocked.
func TestPrepareReleaseFileLock(t *testing.T) {
	ctx := context.Background()
	rel := smallRelease(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	first, err := PrepareReleaseFile(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := PrepareReleaseFile(ctx, filepath.Join(dir, "other.json"), func() { t.Error("another path waited") })
	if err != nil {
		t.Fatal(err)
	}
	other.Abort()
	waits := 0
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	var busy *ReleaseFileBusyError
	if _, err := PrepareReleaseFile(short, path, func() { waits++ }); !errors.As(err, &busy) || busy.Path != path {
		t.Fatalf("second prepare while the first holds the path: %v, want *ReleaseFileBusyError", err)
	}
	if waits != 1 {
		t.Errorf("busy called %d times, want 1", waits)
	}
	gone, cancelGone := context.WithCancel(ctx)
	cancelGone()
	if _, err := PrepareReleaseFile(gone, path, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v, want context.Canceled", err)
	}
	if err := first.Commit(rel); err != nil {
		t.Fatal(err)
	}
	second, err := PrepareReleaseFile(ctx, path, func() { t.Error("waited after the first committed") })
	if err != nil {
		t.Fatal(err)
	}
	second.Abort()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if back, err := ReadReleaseFile(path); err != nil || back.Meta.ReleaseID != rel.Meta.ReleaseID {
		t.Errorf("the committed file: %v", err)
	}
}
