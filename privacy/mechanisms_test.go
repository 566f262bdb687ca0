package privacy

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/keyednoise"
	"github.com/graphcloak/graphcloak/sensor"
)

// The mechanism table is one home: each row's name parses to its
// Mechanism and back, names and values are unique, a released row has a
// sampler keyednoise implements and an accounting, and at most one row
// runs at a sensor per sampler version (an order's sampler names its
// mechanism) — and that sampler derives sensor keys.
func TestMechanismTableIsConsistent(t *testing.T) {
	names, values, atSensor := map[string]bool{}, map[Mechanism]bool{}, map[int]string{}
	for _, m := range Mechanisms() {
		if names[m.Name] || values[m.Mechanism] {
			t.Errorf("%s: name or value repeated", m.Name)
		}
		names[m.Name], values[m.Mechanism] = true, true
		if p, err := ParseMechanism(strings.ToUpper(m.Name)); err != nil || p != m.Mechanism || m.Mechanism.String() != m.Name {
			t.Errorf("%s: ParseMechanism = %v, %v; String = %q", m.Name, p, err, m.Mechanism.String())
		}
		if m.Mechanism == MechanismDefault || m.Sigma == nil || m.Title == "" || m.Calibration == "" {
			t.Errorf("%s: incomplete row %+v", m.Name, m)
		}
		if (m.Sampler != 0) != (m.Accounting != "") {
			t.Errorf("%s: sampler %d with accounting %q: a released mechanism needs both, another neither", m.Name, m.Sampler, m.Accounting)
		}
		if m.Sampler != 0 {
			var master [keyednoise.KeySize]byte
			p := keyednoise.Params{Version: m.Sampler, ReleaseID: NewReleaseID(), Scope: "s", Epoch: "e", GridVariance: 4, GridExponent: 3}
			if err := keyednoise.Fill(&master, p, []string{"node"}, make([]int64, 1)); err != nil {
				t.Errorf("%s: keyednoise does not draw sampler version %d: %v", m.Name, m.Sampler, err)
			}
			if m.AtSensor {
				sk := keyednoise.SensorKey(&master, "node")
				if _, err := keyednoise.SensorNoise(&sk, p, "node"); err != nil {
					t.Errorf("%s runs at a sensor, but sampler %d derives no sensor key: %v", m.Name, m.Sampler, err)
				}
			}
		}
		if m.AtSensor {
			if m.Sampler == 0 || atSensor[m.Sampler] != "" {
				t.Errorf("%s runs at a sensor with sampler %d (also %q's)", m.Name, m.Sampler, atSensor[m.Sampler])
			}
			atSensor[m.Sampler] = m.Name
			if r, ok := MechanismAtSensor(m.Sampler); !ok || r.Name != m.Name {
				t.Errorf("MechanismAtSensor(%d) = %q, %v", m.Sampler, r.Name, ok)
			}
		}
	}
	if LatestSamplerVersion() < SamplerVersion {
		t.Errorf("the latest sampler version %d is older than the default's %d", LatestSamplerVersion(), SamplerVersion)
	}
	if _, ok := MechanismDefault.Spec(); ok {
		t.Error("MechanismDefault has a row: it stands for another row")
	}
	if len(atSensor) == 0 {
		t.Error("no mechanism runs at a sensor")
	}
}

// Each row's Sigma is its theorem's closed form (classic: Dwork & Roth
// Thm A.1; discrete: Δ/√(2ρ) at CKSRho; analytic: the smallest σ with
// GaussianDelta ≤ δ, Balle & Wang Thm 8), and Calibrate returns it.
func TestMechanismSigmaIsItsCalibration(t *testing.T) {
	const sens, eps, delta = 0.7, 0.5, 1e-6
	rho, err := CKSRho(eps, delta)
	if err != nil {
		t.Fatal(err)
	}
	oracle := map[Mechanism]func(s float64) bool{
		MechanismClassic: func(s float64) bool {
			return math.Abs(s-math.Sqrt(2*math.Log(1.25/delta))*sens/eps) <= 4*math.Nextafter(s, math.Inf(1))-4*s
		},
		MechanismDiscrete: func(s float64) bool { return math.Abs(s-sens/math.Sqrt(2*rho)) <= 1e-12*s },
		MechanismAnalytic: func(s float64) bool {
			return GaussianDelta(sens/s, eps) <= delta && GaussianDelta(sens/(s*(1-1e-6)), eps) > delta
		},
	}
	for _, m := range Mechanisms() {
		s, err := m.Sigma(sens, eps, delta)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		check, ok := oracle[m.Mechanism]
		if !ok {
			t.Errorf("%s: no closed form in this test: add the row's theorem", m.Name)
		} else if !check(s) {
			t.Errorf("%s: σ = %v is not its closed form", m.Name, s)
		}
		c, err := Calibrate(CalibrationParams{Sensitivity: sens, Epsilon: eps, Delta: delta, Mechanism: m.Mechanism})
		if err != nil || c.Sigma != s || c.Mechanism != m.Mechanism {
			t.Errorf("%s: Calibrate = %+v, %v, want σ = %v", m.Name, c, err, s)
		}
	}
}

// Release draws what the row says: a row with a sampler calibrates with
// its sampler version and name, one without is refused.
func TestReleaseDrawsItsMechanismRow(t *testing.T) {
	for _, m := range Mechanisms() {
		cal, err := CalibrateRelease(0.05, 0.5, 1e-5, 100, m.Mechanism)
		switch {
		case m.Sampler == 0 && err == nil:
			t.Errorf("%s: released, but it has no sampler", m.Name)
		case m.Sampler != 0 && err != nil:
			t.Errorf("%s: %v", m.Name, err)
		case m.Sampler != 0 && (cal.Mechanism != m.Name || cal.SamplerVersion != m.Sampler):
			t.Errorf("%s: calibration %+v, want its name and sampler %d", m.Name, cal, m.Sampler)
		}
	}
	def, err := ReleaseMechanism(MechanismDefault)
	if err != nil || def.Mechanism != MechanismDiscrete {
		t.Errorf("the default release mechanism is %v, %v", def.Name, err)
	}
}

// The sensor cannot import privacy (TestImportRules), so it keeps a copy
// of the rows that run at a sensor: the copy equals the table, and an
// order's check accepts exactly the sampler versions of those rows.
func TestSensorMechanismsAgree(t *testing.T) {
	var want []sensor.Mechanism
	for _, m := range Mechanisms() {
		if m.AtSensor {
			want = append(want, sensor.Mechanism{Name: m.Name, Sampler: m.Sampler, Accounting: m.Accounting})
		}
	}
	if !slices.Equal(sensor.Mechanisms, want) {
		t.Errorf("sensor.Mechanisms = %+v, want the table's rows at a sensor %+v", sensor.Mechanisms, want)
	}
	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	order := func(sampler int) sensor.Order {
		return sensor.Order{Version: sensor.OrderVersion, Kind: sensor.OrderKind, Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-5,
			Sensitivity: 0.1, EffectiveSensitivity: 0.11, Rho: 0.01,
			Sampler:   sensor.Sampler{Version: sampler, GridExponent: 10, GridVariance: 1000},
			ReleaseID: NewReleaseID(), Scope: "s", Epoch: "e", NotBefore: t0, NotAfter: t0.Add(time.Hour), Nodes: []string{"a"}}
	}
	tried := map[int]bool{}
	for _, m := range Mechanisms() {
		if m.Sampler == 0 || tried[m.Sampler] {
			continue
		}
		tried[m.Sampler] = true
		_, atSensor := MechanismAtSensor(m.Sampler)
		if err := order(m.Sampler).Check(); (err == nil) != atSensor {
			t.Errorf("sampler %d (%s): order check %v, want accepted %v", m.Sampler, m.Name, err, atSensor)
		}
	}
	for _, v := range []int{0, 1, 2, 99} {
		if _, ok := MechanismAtSensor(v); !ok && order(v).Check() == nil {
			t.Errorf("an order of sampler version %d, which no mechanism at a sensor draws, accepted", v)
		}
	}
}

// MechanismDefault has one meaning: Calibrate's default σ is the one the
// default release draws (the discrete Gaussian's, σ = Δ/√(2ρ) with
// ρ = CKSRho(ε, δ)), as the simulations' and the pipeline's. Before,
// Calibrate took it for the analytic Gaussian (a smaller σ, proven for
// continuous noise only).
func TestMechanismDefaultHasOneMeaning(t *testing.T) {
	rel, err := ReleaseMechanism(MechanismDefault)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []CalibrationParams{{Sensitivity: 1, Epsilon: 1, Delta: 1e-5}, {Sensitivity: 0.356, Epsilon: 4, Delta: 1e-6}} {
		c, err := Calibrate(p)
		if err != nil {
			t.Fatal(err)
		}
		rho, err := CKSRho(p.Epsilon, p.Delta)
		if err != nil {
			t.Fatal(err)
		}
		want := p.Sensitivity / math.Sqrt(2*rho)
		if c.Mechanism != rel.Mechanism || c.Mechanism != MechanismDefault.Resolve() || math.Abs(c.Sigma-want) > 1e-9*want {
			t.Errorf("Calibrate(%+v) default: %v σ = %v, want the release's %s σ = Δ/√(2ρ) = %v", p, c.Mechanism, c.Sigma, rel.Name, want)
		}
	}
}
