package sensor

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/keyednoise"
)

var testMaster = [32]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}

type rig struct {
	t    *testing.T
	priv ed25519.PrivateKey
	now  time.Time
	dir  string
}

func newRig(t *testing.T) *rig {
	return &rig{t: t, priv: testCoordinator("a"), now: testOrder().NotBefore.Add(time.Minute), dir: t.TempDir()}
}

// sensor returns node's sensor with policy p and its odometer, created
// (as provisioning does) on first use of the node in this rig.
func (r *rig) sensor(node string, p Policy) *Sensor {
	path := filepath.Join(r.dir, node+".odometer")
	if _, err := os.Lstat(path); err != nil {
		if err := InitOdometer(path, node, r.now.Add(-time.Hour), false); err != nil {
			r.t.Fatal(err)
		}
	}
	return &Sensor{Coordinator: r.priv.Public().(ed25519.PublicKey), Node: node, Key: Key(SensorKey(testMaster, node)),
		Policy: p, Odometer: path, Now: func() time.Time { return r.now }}
}

func (r *rig) sign(o Order) []byte {
	env, err := SignOrder(r.priv, o)
	if err != nil {
		r.t.Fatal(err)
	}
	return env
}

// orderFor returns testOrder with another epoch and release id.
func orderFor(i int) Order {
	o := testOrder()
	o.Epoch = "epoch-" + string(rune('a'+i))
	o.ReleaseID = "rel-" + strings.Repeat(string("0123456789abcdef"[i%16]), 32)
	return o
}

// A report verifies under the node's MAC key, carries round(y·2^k) + Z
// with Z the master key's version 3 noise for the node, and its odometer
// entry is on disk (0600) when Report returns.
func TestSensorReport(t *testing.T) {
	r := newRig(t)
	o := testOrder()
	env := r.sign(o)
	nodes := []string{"n1", "n2", "n3", "n4"}
	z := make([]int64, len(nodes))
	if err := keyednoise.Fill(&testMaster, o.NoiseParams(), nodes, z); err != nil {
		t.Fatal(err)
	}
	for i, node := range nodes {
		y := 21.5 + 0.37*float64(i)
		s := r.sensor(node, openPolicy())
		rep, err := s.Report(env, y)
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Verify(ReportMACKey(SensorKey(testMaster, node)), o.Sampler.GridExponent); err != nil {
			t.Fatal(err)
		}
		if err := o.CheckReport(rep); err != nil {
			t.Fatal(err)
		}
		if want := int64(math.Round(math.Ldexp(y, 16))) + z[i]; rep.Grid != want {
			t.Errorf("%s: grid %d, want round(y·2^16) + Z = %d", node, rep.Grid, want)
		}
		st, err := os.Stat(s.Odometer)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("odometer: %v, mode %v", err, st.Mode())
		}
		data, _ := os.ReadFile(s.Odometer)
		if strings.Contains(string(data), "21.") || !strings.Contains(string(data), o.ReleaseID) {
			t.Errorf("odometer holds %s", data)
		}
		// The raw value does not appear in the report.
		b, _ := json.Marshal(rep)
		if strings.Contains(string(b), "21.5") {
			t.Errorf("report holds the raw value: %s", b)
		}
	}
}

// Every hostile input is refused with its own error, and nothing is
// recorded in the odometer for it.
func TestSensorRefuses(t *testing.T) {
	r := newRig(t)
	good := testOrder()
	env := r.sign(good)
	mallory := testCoordinator("mallory")
	forged, _ := SignOrder(mallory, good)
	otherGraph := good
	otherGraph.Graph.SHA256 = strings.Repeat("cd", 32)
	lowSigma := good
	lowSigma.Sampler.GridVariance = 4 // σ = 2^-16·2
	longWindow := good
	longWindow.NotAfter = good.NotBefore.Add(DefaultMaxValidity + time.Second)
	with := func(f func(*Policy)) Policy { p := openPolicy(); f(&p); return p }
	cases := []struct {
		name  string
		env   []byte
		value float64
		pol   Policy
		node  string
		at    time.Duration // after NotBefore
		want  error
	}{
		{"forged order (another coordinator key)", forged, 1, openPolicy(), "n1", time.Minute, ErrBadSignature},
		{"malformed order", []byte(`{"order": 42}`), 1, openPolicy(), "n1", time.Minute, ErrOrder},
		{"not JSON", []byte("\x00\x01"), 1, openPolicy(), "n1", time.Minute, ErrOrder},
		{"expired order", env, 1, openPolicy(), "n1", 2 * time.Hour, ErrExpired},
		{"order not yet valid", env, 1, openPolicy(), "n1", -time.Minute, ErrExpired},
		{"node not in order", env, 1, openPolicy(), "n9", time.Minute, ErrNodeNotInOrder},
		{"other graph", r.sign(otherGraph), 1, with(func(p *Policy) { p.GraphSHA256 = good.Graph.SHA256 }), "n1", time.Minute, ErrPolicy},
		{"σ below floor", r.sign(lowSigma), 1, with(func(p *Policy) { p.SigmaFloor = 10 }), "n1", time.Minute, ErrPolicy},
		{"window longer than accepted", r.sign(longWindow), 1, openPolicy(), "n1", time.Minute, ErrPolicy},
		{"NaN value", env, math.NaN(), openPolicy(), "n1", time.Minute, ErrValue},
		{"infinite value", env, math.Inf(-1), openPolicy(), "n1", time.Minute, ErrValue},
		{"value too large for the grid", env, 1e14, openPolicy(), "n1", time.Minute, ErrValue},
		{"single report over the cap", env, 1, with(func(p *Policy) { p.MaxEpsilonPerDay = 0.01 }), "n1", time.Minute, ErrPolicy},
		{"bad policy", env, 1, with(func(p *Policy) { p.SigmaFloor = -1 }), "n1", time.Minute, nil},
		{"no policy", env, 1, Policy{}, "n1", time.Minute, ErrNoPolicy},
		{"no σ floor", env, 1, with(func(p *Policy) { p.SigmaFloor = 0 }), "n1", time.Minute, ErrNoPolicy},
		{"no cap", env, 1, with(func(p *Policy) { p.MaxEpsilonPerDay = 0 }), "n1", time.Minute, ErrNoPolicy},
		{"no α", env, 1, with(func(p *Policy) { p.Alpha = 0 }), "n1", time.Minute, ErrNoPolicy},
	}
	for _, c := range cases {
		r.now = good.NotBefore.Add(c.at)
		s := r.sensor(c.node, c.pol)
		_, err := s.Report(c.env, c.value)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
		if strings.Contains(err.Error(), "1e+14") || strings.Contains(err.Error(), "NaN") {
			t.Errorf("%s: error prints the value: %v", c.name, err)
		}
		if od, lerr := loadOdometer(s.Odometer, s.Node); lerr != nil || len(od.Entries) != 0 {
			t.Errorf("%s: an odometer entry was written (%v)", c.name, lerr)
		}
	}
}

// Never twice for one epoch: the same order with another value gives the
// recorded report (the reading is not read), the same epoch under another
// release id is refused, also by a restarted sensor; nothing is charged
// again.
func TestSensorOncePerEpoch(t *testing.T) {
	r := newRig(t)
	o := testOrder()
	env := r.sign(o)
	first, err := r.sensor("n1", openPolicy()).Report(env, 20.25)
	if err != nil {
		t.Fatal(err)
	}
	restarted := r.sensor("n1", openPolicy()) // a new process: state only from the file
	if rep, err := restarted.Report(env, 20.5); err != nil || rep != first {
		t.Errorf("second value: %+v, %v; want the first report %+v", rep, err, first)
	}
	reissued := o
	reissued.ReleaseID = "rel-" + strings.Repeat("9", 32)
	if _, err := restarted.Report(r.sign(reissued), 20.25); !errors.Is(err, ErrAlreadyReported) {
		t.Errorf("same epoch, new release id: %v", err)
	}
	again, err := restarted.Report(env, 20.25)
	if err != nil || again != first {
		t.Errorf("retry: %+v, %v; want the first report %+v", again, err, first)
	}
	od, err := loadOdometer(restarted.Odometer, "n1")
	if err != nil || len(od.Entries) != 1 {
		t.Fatalf("odometer: %+v, %v", od, err)
	}
}

// The daily cap: ρ adds up over the UTC day (zCDP composition) and the
// report that would take ε_day above the cap is refused; the next day
// starts afresh.
func TestSensorDailyCap(t *testing.T) {
	r := newRig(t)
	p := Policy{Alpha: 1, SigmaFloor: 1, DayDelta: 1e-6}
	rho := p.Cost(testOrder())
	// A cap that admits exactly two reports: ε_day(2ρ) ≤ cap < ε_day(3ρ).
	p.MaxEpsilonPerDay = (p.DayEpsilon(2*rho) + p.DayEpsilon(3*rho)) / 2
	s := r.sensor("n2", p)
	for i := 0; i < 3; i++ {
		o := orderFor(i)
		_, err := s.Report(r.sign(o), 1)
		if i < 2 && err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
		if i == 2 {
			var pe *PolicyError
			if !errors.As(err, &pe) || pe.Rule != "daily-cap" {
				t.Fatalf("report %d: %v, want the daily cap", i, err)
			}
		}
	}
	next := orderFor(3)
	next.NotBefore, next.NotAfter = next.NotBefore.Add(24*time.Hour), next.NotAfter.Add(24*time.Hour)
	r.now = next.NotBefore.Add(time.Minute)
	if _, err := s.Report(r.sign(next), 1); err != nil {
		t.Errorf("next day: %v", err)
	}
	// Bun–Steinke conversion, checked at one point by hand:
	// ρ = 0.5, δ = e^-2: ε = 0.5 + 2·√(0.5·2) = 2.5.
	if e := (Policy{DayDelta: math.Exp(-2)}).DayEpsilon(0.5); math.Abs(e-2.5) > 1e-12 {
		t.Errorf("DayEpsilon = %v, want 2.5", e)
	}
}

// Cost charges what the grid's noise costs at the policy's own Δ2 bound
// (√2·α, or SensitivityBound) even if the order claims less; an order
// that states more is charged its own numbers.
func TestCostFromPolicy(t *testing.T) {
	o := testOrder()
	sigma := math.Ldexp(math.Sqrt(float64(o.Sampler.GridVariance)), -16)
	gamma2 := math.Ldexp(1, -16) * 2 // γ√n, n = 4
	for _, c := range []struct {
		name  string
		p     Policy
		delta float64 // the Δ2 charged
	}{
		{"√2·α", Policy{Alpha: 1, SigmaFloor: 1, MaxEpsilonPerDay: 1}, math.Sqrt2},
		{"√2·α, α = 3", Policy{Alpha: 3, SigmaFloor: 1, MaxEpsilonPerDay: 1}, 3 * math.Sqrt2},
		{"provisioned Δ2 bound", Policy{Alpha: 1, SensitivityBound: 0.5, SigmaFloor: 1, MaxEpsilonPerDay: 1}, 0.5},
		{"order's Δ2 above the bound", Policy{Alpha: 1, SensitivityBound: 0.1, SigmaFloor: 1, MaxEpsilonPerDay: 1}, o.Sensitivity},
	} {
		want := (c.delta + gamma2) * (c.delta + gamma2) / (2 * sigma * sigma)
		lying := o // states a tiny Δ_eff and ρ; Δ2 tiny too, except in the last row
		lying.Rho, lying.Sensitivity, lying.EffectiveSensitivity = 1e-9, 1e-12, 1e-12
		if c.delta == o.Sensitivity {
			lying.Sensitivity = o.Sensitivity
		}
		if got := c.p.Cost(lying); math.Abs(got-want) > 1e-12*want || got < want {
			t.Errorf("%s: Cost = %v, want (Δ + γ√n)²/(2σ²) = %v", c.name, got, want)
		}
	}
	o.Rho = 50
	if (Policy{Alpha: 1}).Cost(o) != math.Nextafter(50, 100) {
		t.Errorf("Cost below the order's own ρ")
	}
}

// The auditor's attack (issue 71): 1 000 signed orders stating Δ2 =
// 10⁻¹², each with σ at the sensor's floor 0.5, to a sensor capped at
// ε = 4 a day. At the true Δ2 (here the universal √2·α, α = 1) one such
// report costs ρ = (√2 + γ√n)²/(2·0.25) ≈ 4: ε ≈ 4 + 2√(4·13.8) ≈ 19 > 4,
// so none may be reported (the cap holds at the real Δ2); today all
// 1 000 were.
func TestForgedSensitivityDrainsNothing(t *testing.T) {
	r := newRig(t)
	p := Policy{Alpha: 1, SigmaFloor: 0.5, MaxEpsilonPerDay: 4}
	s := r.sensor("n1", p)
	reported := 0
	for i := 0; i < 1000; i++ {
		o := testOrder()
		o.Epoch = fmt.Sprintf("forged-%d", i)
		o.ReleaseID = fmt.Sprintf("rel-%032x", i+1)
		o.Sampler.GridExponent, o.Sampler.GridVariance = 10, 1<<18 // σ = 2^-10·512 = 0.5, the floor
		o.Sensitivity, o.EffectiveSensitivity, o.Rho = 1e-12, 1e-12+math.Ldexp(2, -10), 1e-9
		if o.Sigma() != 0.5 {
			t.Fatalf("σ = %v", o.Sigma())
		}
		if _, err := s.Report(r.sign(o), 0.123456789); err == nil {
			reported++
		} else if !errors.Is(err, ErrPolicy) {
			t.Fatalf("order %d: %v", i, err)
		}
	}
	if reported != 0 {
		t.Errorf("%d of 1000 forged orders were reported; the cap at the true Δ2 admits none", reported)
	}
	// The spend the odometer records stays within the cap at the real Δ2.
	od, _ := loadOdometer(s.Odometer, "n1")
	var rho float64
	for _, e := range od.Entries {
		rho += e.Rho
	}
	if e := p.DayEpsilon(rho); e > p.MaxEpsilonPerDay {
		t.Errorf("recorded ε_day %v above the cap", e)
	}
}

// Without a policy a sensor never reports, whatever σ the order asks:
// σ = 2^-60 would reveal the reading's exact float64.
func TestNoPolicyNoReport(t *testing.T) {
	r := newRig(t)
	o := testOrder()
	o.Sampler.GridExponent, o.Sampler.GridVariance = 60, 1 // σ = 2^-60
	env := r.sign(o)
	if _, err := r.sensor("n1", Policy{}).Report(env, 0.123456789); !errors.Is(err, ErrNoPolicy) {
		t.Errorf("zero policy: %v, want ErrNoPolicy", err)
	}
	if _, err := r.sensor("n1", openPolicy()).Report(env, 0.123456789); !errors.Is(err, ErrPolicy) {
		t.Errorf("σ = 2^-60 under a σ floor of 1: %v, want ErrPolicy", err)
	}
	// The floor keygen provisions: a single report charged at √2·α just
	// fits a cap of ε = 4.
	f := SigmaFloorFor(math.Sqrt2, 4, 0)
	p := Policy{}
	if rho := 2.0 / (2 * f * f); p.DayEpsilon(rho) > 4 || p.DayEpsilon(rho*1.001) <= 4 {
		t.Errorf("SigmaFloorFor(√2, 4) = %v: ε of one report %v", f, p.DayEpsilon(rho))
	}
}

func TestOdometerFaults(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	s := r.sensor("n1", openPolicy())
	for name, content := range map[string]string{
		"truncated":     `{"kind":"graphcloak.sensor-odometer","version":1,"node":"n1","entries":[{"relea`,
		"garbage":       "\x00\x00\x00",
		"other kind":    `{"kind":"x","version":1,"node":"n1","entries":[]}`,
		"other node":    `{"kind":"graphcloak.sensor-odometer","version":1,"node":"n2","entries":[]}`,
		"bad entry":     `{"kind":"graphcloak.sensor-odometer","version":1,"node":"n1","entries":[{"releaseId":"","scope":"","epoch":"","day":"","rho":0,"grid":0,"at":"2026-01-01T00:00:00Z"}]}`,
		"unknown field": `{"kind":"graphcloak.sensor-odometer","version":1,"node":"n1","entries":[],"x":1}`,
	} {
		os.WriteFile(s.Odometer, []byte(content), 0o600)
		if _, err := s.Report(env, 1); !errors.Is(err, ErrOdometer) {
			t.Errorf("%s: err = %v, want ErrOdometer", name, err)
		}
	}
	// Unwritable: the odometer's directory does not exist; a directory in
	// the odometer's place.
	s.Odometer = filepath.Join(r.dir, "missing", "odometer")
	if _, err := s.Report(env, 1); !errors.Is(err, ErrOdometer) {
		t.Errorf("missing directory: %v", err)
	}
	s.Odometer = filepath.Join(r.dir, "isdir")
	os.Mkdir(s.Odometer, 0o700)
	if _, err := s.Report(env, 1); !errors.Is(err, ErrOdometer) {
		t.Errorf("directory: %v", err)
	}
}

func TestKeyNeverPrints(t *testing.T) {
	s := (&rig{t: t, priv: testCoordinator("a"), dir: t.TempDir()}).sensor("n1", Policy{})
	for _, out := range []string{
		func() string { b, _ := json.Marshal(s.Policy); return string(b) }(),
		strings.Join([]string{fmtAll(s.Key), fmtAll(*s)}, " "),
	} {
		k := SensorKey(testMaster, "n1")
		if strings.Contains(strings.ToLower(out), strings.ToLower(hexOf(k[:4]))) {
			t.Errorf("key material printed: %s", out)
		}
	}
}

// Sensor processes sharing one odometer (flock) report once per epoch
// between them: of 8 concurrent reports of different values, one is
// drawn and the others get it again (a retry) or are refused.
func TestSensorConcurrentOnce(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	type result struct {
		rep Report
		err error
	}
	errs := make(chan result, 8)
	r.sensor("n3", openPolicy()) // provisions the odometer once
	for i := 0; i < 8; i++ {
		go func(i int) {
			rep, err := r.sensor("n3", openPolicy()).Report(env, float64(i))
			errs <- result{rep, err}
		}(i)
	}
	ok := map[Report]bool{}
	for i := 0; i < 8; i++ {
		res := <-errs
		err := res.err
		switch {
		case err == nil:
			ok[res.rep] = true
		case !errors.Is(err, ErrAlreadyReported):
			t.Errorf("unexpected error %v", err)
		}
	}
	od, err := loadOdometer(r.sensor("n3", openPolicy()).Odometer, "n3")
	if len(ok) != 1 || err != nil || len(od.Entries) != 1 {
		t.Errorf("%d distinct reports, odometer %v entries %d", len(ok), err, len(od.Entries))
	}
}
