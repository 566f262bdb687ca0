package sensor

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
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

func (r *rig) sensor(node string, p Policy) *Sensor {
	return &Sensor{Coordinator: r.priv.Public().(ed25519.PublicKey), Node: node, Key: Key(SensorKey(testMaster, node)),
		Policy: p, Odometer: filepath.Join(r.dir, node+".odometer"), Now: func() time.Time { return r.now }}
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
		s := r.sensor(node, Policy{SigmaFloor: 1, MaxEpsilonPerDay: 10})
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
	cases := []struct {
		name  string
		env   []byte
		value float64
		pol   Policy
		node  string
		at    time.Duration // after NotBefore
		want  error
	}{
		{"forged order (another coordinator key)", forged, 1, Policy{}, "n1", time.Minute, ErrBadSignature},
		{"malformed order", []byte(`{"order": 42}`), 1, Policy{}, "n1", time.Minute, ErrOrder},
		{"not JSON", []byte("\x00\x01"), 1, Policy{}, "n1", time.Minute, ErrOrder},
		{"expired order", env, 1, Policy{}, "n1", 2 * time.Hour, ErrExpired},
		{"order not yet valid", env, 1, Policy{}, "n1", -time.Minute, ErrExpired},
		{"node not in order", env, 1, Policy{}, "n9", time.Minute, ErrNodeNotInOrder},
		{"other graph", r.sign(otherGraph), 1, Policy{GraphSHA256: good.Graph.SHA256}, "n1", time.Minute, ErrPolicy},
		{"σ below floor", r.sign(lowSigma), 1, Policy{SigmaFloor: 0.01}, "n1", time.Minute, ErrPolicy},
		{"NaN value", env, math.NaN(), Policy{}, "n1", time.Minute, ErrValue},
		{"infinite value", env, math.Inf(-1), Policy{}, "n1", time.Minute, ErrValue},
		{"value too large for the grid", env, 1e14, Policy{}, "n1", time.Minute, ErrValue},
		{"single report over the cap", env, 1, Policy{MaxEpsilonPerDay: 0.01}, "n1", time.Minute, ErrPolicy},
		{"bad policy", env, 1, Policy{SigmaFloor: -1}, "n1", time.Minute, nil},
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
		if _, serr := os.Stat(s.Odometer); serr == nil {
			t.Errorf("%s: an odometer entry was written", c.name)
		}
	}
}

// Never twice for one epoch: another value, or the same epoch under
// another release id, is refused, also by a restarted sensor; the same
// order with the same value gives the identical report without a charge.
func TestSensorOncePerEpoch(t *testing.T) {
	r := newRig(t)
	o := testOrder()
	env := r.sign(o)
	first, err := r.sensor("n1", Policy{}).Report(env, 20.25)
	if err != nil {
		t.Fatal(err)
	}
	restarted := r.sensor("n1", Policy{}) // a new process: state only from the file
	if _, err := restarted.Report(env, 20.5); !errors.Is(err, ErrAlreadyReported) {
		t.Errorf("second value: %v", err)
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
	rho := Cost(testOrder())
	p := Policy{DayDelta: 1e-6}
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

// Cost charges what the grid's noise costs even if the order claims less.
func TestCostFromGrid(t *testing.T) {
	o := testOrder()
	sigma := math.Ldexp(math.Sqrt(float64(o.Sampler.GridVariance)), -16)
	eff := o.Sensitivity + math.Ldexp(1, -16)*2
	want := max(o.EffectiveSensitivity, eff) * max(o.EffectiveSensitivity, eff) / (2 * sigma * sigma)
	o.Rho = 1e-9 // a lying coordinator
	if c := Cost(o); math.Abs(c-want) > 1e-15*want {
		t.Errorf("Cost = %v, want Δ_eff²/(2σ²) = %v", c, want)
	}
	o.Rho = 5
	if Cost(o) != 5 {
		t.Errorf("Cost below the order's own ρ")
	}
}

func TestOdometerFaults(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	s := r.sensor("n1", Policy{})
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
// between them: of 8 concurrent reports of different values, one
// succeeds and the others are refused.
func TestSensorConcurrentOnce(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func(i int) {
			_, err := r.sensor("n3", Policy{}).Report(env, float64(i))
			errs <- err
		}(i)
	}
	ok := 0
	for i := 0; i < 8; i++ {
		err := <-errs
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrAlreadyReported):
			t.Errorf("unexpected error %v", err)
		}
	}
	od, err := loadOdometer(r.sensor("n3", Policy{}).Odometer, "n3")
	if ok != 1 || err != nil || len(od.Entries) != 1 {
		t.Errorf("%d reports succeeded, odometer %v entries %d", ok, err, len(od.Entries))
	}
}
