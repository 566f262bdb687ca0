package main

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestLineSpec: the flags of experiment line become the experiment with
// fixed or private noise, and each bad value is refused naming its flag.
func TestLineSpec(t *testing.T) {
	base := func() lineOptions {
		return lineOptions{n: 100, m: 50, T: 0.05, sigma: 0.1, delta: 1e-5, mechanism: "discrete", sources: []float64{0.24, 0.76},
			trials: 20, estimator: recovery.Default, seed: 3}
	}
	o := base()
	e, err := lineSpec(&o)
	if err != nil || e.N != 100 || e.M != 50 || e.T != 0.05 || e.Sigma != 0.1 || e.Epsilon != 0 || e.Trials != 20 || e.Seed != 3 || len(e.Sources) != 2 {
		t.Errorf("fixed σ: %+v, %v", e, err)
	}
	o.private, o.epsilon = true, 2
	e, err = lineSpec(&o)
	if err != nil || e.Sigma != 0 || e.Epsilon != 2 || e.Delta != 1e-5 || e.Mechanism != privacy.MechanismDiscrete {
		t.Errorf("private σ: %+v, %v", e, err)
	}
	for _, c := range []struct {
		name, flag string
		change     func(*lineOptions)
	}{
		{"grid", "--n", func(o *lineOptions) { o.n = 1 }},
		{"sensors", "--m", func(o *lineOptions) { o.m = 0 }},
		{"trials", "--trials", func(o *lineOptions) { o.trials = 0 }},
		{"no sources", "--sources", func(o *lineOptions) { o.sources = nil }},
		{"source outside", "--sources", func(o *lineOptions) { o.sources = []float64{1.5} }},
		{"tau", "--tau", func(o *lineOptions) { o.T = -1 }},
		{"alpha", "--alpha", func(o *lineOptions) { o.alpha = -1 }},
		{"sigma", "--sigma", func(o *lineOptions) { o.sigma = 0 }},
		{"epsilon", "--epsilon", func(o *lineOptions) { o.private, o.epsilon = true, 0 }},
		{"delta", "--delta", func(o *lineOptions) { o.private, o.epsilon, o.delta = true, 1, 1 }},
		{"mechanism", "--mechanism", func(o *lineOptions) { o.private, o.epsilon, o.mechanism = true, 1, "bogus" }},
		{"estimator", "--estimator", func(o *lineOptions) { o.estimator = "bogus" }},
		{"plot", "--plot", func(o *lineOptions) { o.plot = "x.bogus" }},
	} {
		o := base()
		c.change(&o)
		_, err := lineSpec(&o)
		if err == nil || !strings.Contains(errorMessage(err), c.flag) || exitCode(err) != exitBadInput {
			t.Errorf("%s: %v (exit %d), want bad input naming %s", c.name, err, exitCode(err), c.flag)
		}
	}
}
