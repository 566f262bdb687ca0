package experiment

import (
	"context"

	"github.com/graphcloak/graphcloak/errkind"
)

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

// Run runs the line experiment r asks for (Checked) with progress (nil:
// none) called after each trial, and draws trial 0 to r.Plot when set.
func (r LineRun) Run(ctx context.Context, progress func(done, total int)) (*LineResult, error) {
	e, err := r.Checked()
	if err != nil {
		return nil, err
	}
	e.Progress = progress
	res, err := RunLine(ctx, e)
	if err != nil {
		return nil, err
	}
	if r.Plot != "" {
		if err := res.Plot(r.Plot); err != nil {
			return nil, err
		}
	}
	return res, nil
}
