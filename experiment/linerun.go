package experiment

import "github.com/graphcloak/graphcloak/errkind"

// LineRun is the line experiment a command asks for: Line, its noise a
// fixed Sigma or, when Private, (Epsilon, Delta) calibrated by the
// mechanism named MechanismName; Plot is its picture file ("": none).
type LineRun struct {
	Line
	Private       bool
	MechanismName string // privacy.ParseMechanism's names
	Plot          string
}

// Checked is the line experiment r asks for, its picture file, grid,
// trials, sources, α, noise and estimator checked (bad input naming the
// parameter): with fixed noise it has no ε or δ, with private noise no σ.
func (r LineRun) Checked() (Line, error) {
	if err := CheckPlot(r.Plot); err != nil {
		return Line{}, err
	}
	e := r.Line
	if err := e.CheckShape(); err != nil {
		return Line{}, err
	}
	if r.Private {
		if err := CheckPrivacy(e.Epsilon, e.Delta); err != nil {
			return Line{}, err
		}
		mech, err := ParseMechanism(r.MechanismName)
		if err != nil {
			return Line{}, err
		}
		e.Mechanism, e.Sigma = mech, 0
	} else {
		if err := errkind.CheckPositive(ParamSigma, e.Sigma); err != nil {
			return Line{}, err
		}
		e.Epsilon, e.Delta, e.Mechanism = 0, 0, 0
	}
	if err := CheckEstimator(e.Estimator); err != nil {
		return Line{}, err
	}
	return e, nil
}
