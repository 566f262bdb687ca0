package experiment

import (
	"errors"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// flag names a parameter as a command's flag does, so the tests read the
// rendered text a user sees.
func flag(p errkind.Param) string { return "--" + string(p) }

// TestLineCheckShape: each bound of the line experiment's shape is
// refused one step past it as bad input naming its parameter, and
// accepted at it; a zero α (the 1/n default) passes.
func TestLineCheckShape(t *testing.T) {
	ok := Line{N: 2, M: 1, T: 0.05, Sources: []float64{1}, Trials: 1}
	if err := ok.CheckShape(); err != nil {
		t.Fatalf("at every bound: %v", err)
	}
	for _, c := range []struct {
		mut  func(*Line)
		want string
	}{
		{func(e *Line) { e.N = 1 }, "--n must be at least 2, got 1"},
		{func(e *Line) { e.M = 0 }, "--m must be at least 1, got 0"},
		{func(e *Line) { e.Trials = 0 }, "--trials must be at least 1, got 0"},
		{func(e *Line) { e.Sources = nil }, "--sources needs at least one position"},
		{func(e *Line) { e.T = 0 }, "--tau must be positive and finite, got 0"},
		{func(e *Line) { e.Sources = []float64{0.5, 0} }, "--sources: position 0 is outside (0, 1]"},
		{func(e *Line) { e.Sources = []float64{1.0000001} }, "--sources: position 1.0000001 is outside (0, 1]"},
		{func(e *Line) { e.Alpha = -1 }, "--alpha must be positive and finite, got -1"},
	} {
		e := ok
		c.mut(&e)
		err := e.CheckShape()
		if err == nil || errkind.Render(err, flag) != c.want || errkind.Of(err) != errkind.BadInput {
			t.Errorf("%+v: %v, want bad input %q", e, err, c.want)
		}
	}
}

// TestSensitivitySweepCheckGiven: the sweep's fixed parameters are
// refused as given — a zero is refused, not defaulted — and every
// parameter is named; the defaults RunSensitivity uses pass.
func TestSensitivitySweepCheckGiven(t *testing.T) {
	ok := SensitivitySweep{}.withDefaults()
	if err := ok.CheckGiven(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, c := range []struct {
		mut   func(*SensitivitySweep)
		param errkind.Param
	}{
		{func(s *SensitivitySweep) { s.T = 0 }, ParamTau},
		{func(s *SensitivitySweep) { s.Alpha = -1 }, ParamAlpha},
		{func(s *SensitivitySweep) { s.M = 0 }, ParamM},
		{func(s *SensitivitySweep) { s.NForM = 0 }, ParamNForM},
		{func(s *SensitivitySweep) { s.NForT = 0 }, ParamNForTau},
	} {
		s := ok
		c.mut(&s)
		err := s.CheckGiven()
		var m *errkind.Message
		if err == nil || !errors.As(err, &m) || errkind.Of(err) != errkind.BadInput {
			t.Fatalf("%s: %v, want bad input", c.param, err)
		}
		if got := errkind.Render(err, func(p errkind.Param) string { return "<" + string(p) + ">" }); got[:len(c.param)+2] != "<"+string(c.param)+">" {
			t.Errorf("%s: %q does not name it first", c.param, got)
		}
	}
}
