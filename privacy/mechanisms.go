package privacy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
)

// Mechanism selects how σ is calibrated.
type Mechanism int

const (
	// MechanismDefault is the discrete Gaussian with zCDP/CKS20
	// accounting, what a release draws, for Calibrate, Release and the
	// simulations alike (Resolve).
	MechanismDefault Mechanism = iota
	// MechanismAnalytic is the analytic Gaussian mechanism (Balle & Wang
	// 2018, Thm 8): the smallest σ whose continuous Gaussian noise is
	// exactly (ε, δ)-DP. Valid for every ε > 0, for continuous noise.
	MechanismAnalytic
	// MechanismClassic is σ = √(2 ln(1.25/δ)) Δ/ε (Dwork & Roth, Thm A.1),
	// proven only for ε < 1 and refused otherwise.
	MechanismClassic
	// MechanismDiscrete is σ = Δ/√(2ρ) with ρ = CKSRho(ε, δ): the noise
	// of a ρ-zCDP discrete Gaussian (CKS20 Thm 14) whose (ε, δ) follows
	// from the CKS20 Cor. 13 conversion. This is what Release samples.
	MechanismDiscrete
)

// String returns the mechanism's name in the table ("analytic",
// "classic", "discrete"; "default" for MechanismDefault).
func (m Mechanism) String() string {
	if m == MechanismDefault {
		return "default"
	}
	if r, ok := m.Spec(); ok {
		return r.Name
	}
	return fmt.Sprintf("Mechanism(%d)", int(m))
}

// MarshalText implements encoding.TextMarshaler.
func (m Mechanism) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Mechanism) UnmarshalText(b []byte) error {
	v, err := ParseMechanism(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ParseMechanism parses a name of the table (any case: "analytic",
// "classic", "discrete") or "" / "default".
func ParseMechanism(s string) (Mechanism, error) {
	name := strings.ToLower(s)
	if name == "" || name == "default" {
		return MechanismDefault, nil
	}
	if r, ok := LookupMechanism(name); ok {
		return r.Mechanism, nil
	}
	return 0, &ArgumentError{Func: "ParseMechanism", Param: "mechanism", Value: s,
		Reason: "must be " + mechanismNames()}
}

// MechanismSpec is one row of the mechanism table (Mechanisms): all that
// the rest of graphcloak knows of a noise mechanism. Config validation
// (config.Validate: which names a release takes, ε's bound), Calibrate and
// Release (σ, the sampler, what a release records), the local release's
// metadata (local.ReleaseMeta), the sensor's order check (sensor.Order
// .Check, through its checked copy sensor.Mechanisms) and the build info
// (internal/buildinfo) read the rows; no other package switches on a
// mechanism's name.
type MechanismSpec struct {
	Mechanism Mechanism
	// Name is how the mechanism is configured (privacy.mechanism,
	// --mechanism) and recorded (ReleaseMeta.Mechanism); Title names it in
	// a sentence; Note is what help says of it in a word or two.
	Name, Title, Note string
	// Calibration says how σ is calibrated, citing its theorem.
	Calibration string
	// Sigma is that calibration: σ for one Gaussian release of L2
	// sensitivity Δ under (ε, δ), rounded up; invalid parameters are
	// refused with *ArgumentError.
	Sigma func(sensitivity, epsilon, delta float64) (float64, error)
	// Sampler is the keyed sampler version (keyednoise) Release draws the
	// noise with; 0: calibration and simulation only, never released
	// (config validation refuses it, Release refuses it).
	Sampler int
	// RoundsUp: Release raises σ̃² until the discrete noise meets (ε, δ)
	// by CKS20 Cor. 13 (the accounting); false: the calibrated σ must
	// already meet it, else the release is refused.
	RoundsUp bool
	// Accounting is how a release's ρ is counted, as ReleaseMeta
	// .Accounting records it ("" when never released).
	Accounting string
	// MaxEpsilon bounds ε (ε < MaxEpsilon) where the calibration is only
	// proven below it; 0: every ε > 0.
	MaxEpsilon float64
	// AtSensor: a sensor can draw it in a local release (the sampler
	// derives sensor keys, keyednoise.SensorKey), with this accounting.
	AtSensor bool
	// Continuous: σ is calibrated for continuous Gaussian noise, so a
	// simulation's exact-node privacy reads it on the exact Gaussian
	// curve; false: by the release's CKS20 accounting.
	Continuous bool
}

// mechanisms is the table. Order matters only for the messages that list
// the names a release takes ("discrete or classic").
var mechanisms = []MechanismSpec{
	{Mechanism: MechanismDiscrete, Name: "discrete", Title: "discrete Gaussian mechanism", Note: "discrete Gaussian, zCDP accounting",
		Calibration: "σ = Δ/√(2ρ), ρ = CKSRho(ε, δ): a ρ-zCDP discrete Gaussian (CKS20 Thm 14), (ε, δ) by CKS20 Cor. 13",
		Sigma:       DiscreteSigma, Sampler: SamplerVersion, RoundsUp: true, Accounting: AccountingCKS20, AtSensor: true},
	{Mechanism: MechanismClassic, Name: "classic", Title: "classic Gaussian mechanism", Note: "ε < 1 only",
		Calibration: "σ = √(2 ln(1.25/δ)) Δ/ε (Dwork & Roth, Thm A.1), proven for ε < 1 only; released as a discrete Gaussian whose (ε, δ) is checked by CKS20",
		Sigma:       ClassicSigma, Sampler: SamplerVersion, Accounting: AccountingCKS20, MaxEpsilon: 1, Continuous: true},
	{Mechanism: MechanismAnalytic, Name: "analytic", Title: "analytic Gaussian mechanism", Note: "continuous noise only",
		Calibration: "the smallest σ whose continuous Gaussian noise is (ε, δ)-DP (Balle & Wang 2018, Thm 8); continuous noise only, never released",
		Sigma:       AnalyticSigma, Continuous: true},
}

// CheckEpsilon refuses, as bad input naming the mechanism, a release at
// an ε the row's calibration is not proven for (ε ≥ MaxEpsilon).
func (r MechanismSpec) CheckEpsilon(epsilon float64) error {
	if r.MaxEpsilon == 0 || epsilon < r.MaxEpsilon {
		return nil
	}
	def, _ := ReleaseMechanism(MechanismDefault)
	return errkind.Inputf("%s: the %s is only proven for ε < %v, got ε = %v (use %s)", ParamMechanism, r.Title, r.MaxEpsilon, epsilon, def.Name)
}

// Mechanisms returns the mechanism table, one row per mechanism.
func Mechanisms() []MechanismSpec { return slices.Clone(mechanisms) }

// Spec returns m's row of the table; false for MechanismDefault (which
// means another row to Calibrate and to Release) and unknown values.
func (m Mechanism) Spec() (MechanismSpec, bool) {
	for _, r := range mechanisms {
		if r.Mechanism == m {
			return r, true
		}
	}
	return MechanismSpec{}, false
}

// LookupMechanism returns the row named name, exactly as configured (no
// case folding: config takes the names as written).
func LookupMechanism(name string) (MechanismSpec, bool) {
	for _, r := range mechanisms {
		if r.Name == name {
			return r, true
		}
	}
	return MechanismSpec{}, false
}

// Resolve is the mechanism m means: MechanismDefault is the discrete
// Gaussian (the one meaning of the default), any other itself.
func (m Mechanism) Resolve() Mechanism {
	if m == MechanismDefault {
		return MechanismDiscrete
	}
	return m
}

// ReleaseMechanism is the row Release draws for m (Resolve); a mechanism
// with no sampler is refused with *ArgumentError (its σ is proven for
// continuous noise only).
func ReleaseMechanism(m Mechanism) (MechanismSpec, error) {
	m = m.Resolve()
	r, ok := m.Spec()
	switch {
	case !ok:
		return MechanismSpec{}, &ArgumentError{Func: "Release", Param: "mechanism", Value: m.String(), Reason: "is unknown"}
	case r.Sampler == 0:
		return MechanismSpec{}, &ArgumentError{Func: "Release", Param: "mechanism", Value: r.Name,
			Reason: "is proven for continuous Gaussian noise only; released noise is a discrete Gaussian, use the default (discrete, zCDP/CKS20 accounting)"}
	}
	return r, nil
}

// MechanismAtSensor returns the row a sensor draws with sampler version
// sampler (an epoch order's Sampler.Version); false when none does. At
// most one row runs at a sensor per sampler version
// (TestMechanismTableIsConsistent), so the order's sampler names it.
func MechanismAtSensor(sampler int) (MechanismSpec, bool) {
	for _, r := range mechanisms {
		if r.AtSensor && r.Sampler == sampler {
			return r, true
		}
	}
	return MechanismSpec{}, false
}

// LatestSamplerVersion is the newest sampler version a mechanism of the
// table draws: this build regenerates (Unmask) every version from 1 to
// it.
func LatestSamplerVersion() int {
	v := 0
	for _, r := range mechanisms {
		v = max(v, r.Sampler)
	}
	return v
}

// ReleaseMechanismNames lists the names a release takes, in table order,
// as a sentence's alternatives: "discrete or classic".
func ReleaseMechanismNames() string {
	var names []string
	for _, r := range mechanisms {
		if r.Sampler != 0 {
			names = append(names, r.Name)
		}
	}
	return orList(names)
}

// ReleaseMechanismHelp is the help of a setting that takes a release's
// mechanism: "discrete (discrete Gaussian, zCDP accounting) or classic
// (ε < 1 only)".
func ReleaseMechanismHelp() string {
	var names []string
	for _, r := range mechanisms {
		if r.Sampler != 0 {
			names = append(names, r.Name+" ("+r.Note+")")
		}
	}
	return orList(names)
}

// MechanismNames lists every name, sorted: "analytic, classic or discrete".
func MechanismNames() string { return mechanismNames() }

// mechanismNames lists every name, sorted: "analytic, classic or discrete".
func mechanismNames() string {
	names := make([]string, len(mechanisms))
	for i, r := range mechanisms {
		names[i] = r.Name
	}
	slices.Sort(names)
	return orList(names)
}

func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
