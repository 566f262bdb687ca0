package forecast

// ResolvedRate is the rate a forecast by source mass must reach for its
// sources to be called resolved: halfway from a guess (the higher of
// chance and always naming the largest community) to always right. It is
// a property of the release, not of the simulation: more trials estimate
// the mass that reaches it more closely, but do not lower it, as they
// lower the mass that beats a guess significantly (ResolvableMass, the
// verdict's threshold).
func ResolvedRate(guess float64) float64 { return guess + (1-guess)/2 }

// Resolved is where a forecast by source mass (MassCurve) reaches a rate:
// the smallest mass of the grid from which on the forecast rate reaches
// Rate, and the masses the curve's 95% intervals allow for it.
type Resolved struct {
	// Rate is the rate reached (ResolvedRate of the forecast's guess).
	Rate float64 `json:"rate"`
	// Mass is the smallest mass from which on the forecast rate reaches
	// Rate (0: not even MaxMass).
	Mass float64 `json:"mass"`
	// Low is the smallest mass from which on every interval's upper end
	// reaches Rate, High the smallest from which on every lower end does
	// (0: not even MaxMass): the true mass lies between them at 95% per
	// point, and a forecast with other trials finds its Mass there.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// ResolvedAt is where curve (ascending masses) reaches rate.
func ResolvedAt(curve []MassPoint, rate float64) Resolved {
	from := func(reaches func(MassPoint) bool) float64 {
		m := 0.0
		for i := len(curve) - 1; i >= 0 && reaches(curve[i]); i-- {
			m = curve[i].Mass
		}
		return m
	}
	return Resolved{Rate: rate,
		Mass: from(func(p MassPoint) bool { return p.CommunityAccuracy >= rate }),
		Low:  from(func(p MassPoint) bool { return p.High >= rate }),
		High: from(func(p MassPoint) bool { return p.Low >= rate })}
}

// resolve sets f.Resolved from its forecast by source mass.
func (f *Forecast) resolve() {
	if len(f.MassCurve) == 0 {
		f.Resolved = nil
		return
	}
	r := ResolvedAt(f.MassCurve, ResolvedRate(f.Guess()))
	f.Resolved = &r
}

// SetMassCurve puts a forecast by source mass (MassCurve's) into f: the
// curve, the mass that beats a guess (the verdict's) and the mass that
// reaches ResolvedRate.
func (f *Forecast) SetMassCurve(curve []MassPoint, resolvable float64) {
	f.MassCurve, f.ResolvableMass = curve, resolvable
	f.resolve()
}
