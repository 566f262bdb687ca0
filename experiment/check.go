package experiment

import "github.com/graphcloak/graphcloak/errkind"

// Parameters the checks below name (errkind.Param): a command shows each
// as its user types it (errkind.Render).
const (
	ParamN       errkind.Param = "n"
	ParamM       errkind.Param = "m"
	ParamTau     errkind.Param = "tau"
	ParamAlpha   errkind.Param = "alpha"
	ParamTrials  errkind.Param = "trials"
	ParamSources errkind.Param = "sources"
	ParamNForM   errkind.Param = "n-for-m"
	ParamNForTau errkind.Param = "n-for-tau"
)

// CheckShape refuses (bad input) a line experiment whose grid, trials,
// sources, T or α are out of range, before its noise is chosen: n ≥ 2,
// m ≥ 1, trials ≥ 1, at least one source, each in (0, 1], T > 0 and a
// given (non-zero) α > 0. RunLine checks the same; CheckShape's errors
// name their parameters, as a command's flags read them.
func (e Line) CheckShape() error {
	switch {
	case e.N < 2:
		return errkind.Inputf("%s must be at least 2, got %d", ParamN, e.N)
	case e.M < 1:
		return errkind.Inputf("%s must be at least 1, got %d", ParamM, e.M)
	case e.Trials < 1:
		return errkind.Inputf("%s must be at least 1, got %d", ParamTrials, e.Trials)
	case len(e.Sources) == 0:
		return errkind.Inputf("%s needs at least one position", ParamSources)
	}
	if err := errkind.CheckPositive(ParamTau, e.T); err != nil {
		return err
	}
	for _, x := range e.Sources {
		if !(x > 0 && x <= 1) {
			return errkind.Inputf("%s: position %v is outside (0, 1]", ParamSources, x)
		}
	}
	if e.Alpha != 0 {
		return errkind.CheckPositive(ParamAlpha, e.Alpha)
	}
	return nil
}

// CheckGiven refuses (bad input) a sensitivity sweep whose fixed
// parameters are out of range as given, before RunSensitivity's defaults
// fill its zeros: T and α positive and finite, M, NForM and NForT ≥ 1.
func (s SensitivitySweep) CheckGiven() error {
	for _, c := range []struct {
		p errkind.Param
		v float64
	}{{ParamTau, s.T}, {ParamAlpha, s.Alpha}} {
		if err := errkind.CheckPositive(c.p, c.v); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		p errkind.Param
		v int
	}{{ParamM, s.M}, {ParamNForM, s.NForM}, {ParamNForTau, s.NForT}} {
		if c.v < 1 {
			return errkind.Inputf("%s must be at least 1, got %d", c.p, c.v)
		}
	}
	return nil
}
