package sensor

import (
	"math"
	"testing"
)

// The default σ floor is the one a single report charged at the policy's
// Δ2 bound needs to fit the daily cap: its cost's ε_day is the cap (to
// rounding), a σ floor given is kept, and a policy without α is unchanged.
func TestWithDefaultSigmaFloor(t *testing.T) {
	for _, c := range []struct {
		p     Policy
		delta float64 // the Δ2 charged
	}{
		{Policy{Alpha: 1, MaxEpsilonPerDay: 4}, math.Sqrt2},
		{Policy{Alpha: 2, MaxEpsilonPerDay: 1, DayDelta: 1e-9}, 2 * math.Sqrt2},
		{Policy{Alpha: 1, SensitivityBound: 0.5, MaxEpsilonPerDay: 4}, 0.5},
	} {
		p := c.p.WithDefaultSigmaFloor()
		// ρ = Δ²/(2σ²), ε_day = ρ + 2√(ρ·ln(1/δ)) (zCDP → (ε, δ)).
		rho := c.delta * c.delta / (2 * p.SigmaFloor * p.SigmaFloor)
		d := c.p.DayDelta
		if d == 0 {
			d = DefaultDayDelta
		}
		eps := rho + 2*math.Sqrt(rho*math.Log(1/d))
		if math.Abs(eps-c.p.MaxEpsilonPerDay) > 1e-12*c.p.MaxEpsilonPerDay { // the floor is the cap's, a rounding apart
			t.Errorf("%+v: σ floor %v spends ε_day %v of a cap %v", c.p, p.SigmaFloor, eps, c.p.MaxEpsilonPerDay)
		}
	}
	if p := (Policy{Alpha: 1, SigmaFloor: 7, MaxEpsilonPerDay: 4}).WithDefaultSigmaFloor(); p.SigmaFloor != 7 {
		t.Errorf("a σ floor given became %v", p.SigmaFloor)
	}
	if p := (Policy{MaxEpsilonPerDay: 4}).WithDefaultSigmaFloor(); p.SigmaFloor != 0 {
		t.Errorf("a policy without α got a σ floor %v", p.SigmaFloor)
	}
}
