package job

import (
	"slices"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

// A release's cost work carries the spec (Δ2 at τ + τ′, or at each
// candidate τ(1 + m) when τ′ is chosen; a given certificate, a cache, the
// forecasts'), and its estimate is the load then cost.Release's steps,
// named as the command that asked.
func TestReleaseSpecEstimate(t *testing.T) {
	g, _, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	name := func(p errkind.Param) string { return "--" + string(p) }
	partition := func() ([]int, error) { return make([]int, g.N()), nil }
	base := ReleaseSpec{Graph: "karate", Tau: 2, Alpha: 1, Delta: 1e-6, Estimator: "posterior", ForecastSeed: 3, ForecastTrials: 10}

	s := base
	s.Smooth, s.CertificatePath, s.CachePath, s.Neo4j = 0.5, "cert.json", "", true
	w := s.CostWork(g, partition, name)
	if !slices.Equal(w.Taus, []float64{2.5}) || !w.CertGiven || w.Cached || !w.Neo4j || w.Trials != 10 || w.Seed != 3 || w.Graph != g {
		t.Errorf("τ′ = 0.5 with a certificate: %+v", w)
	}
	s = base
	s.SmoothAuto, s.CachePath = true, "d2.json"
	w = s.CostWork(g, partition, name)
	var want []float64
	for _, m := range SmoothCandidates {
		want = append(want, 2*(1+m))
	}
	if !slices.Equal(w.Taus, want) || !w.SmoothAuto || w.CertGiven || !w.Cached {
		t.Errorf("τ′ auto: Δ2 at %v, want %v (%+v)", w.Taus, want, w)
	}

	for _, dry := range []bool{false, true} {
		s := base
		s.DryRun = dry
		e, err := s.Estimate(g, time.Now(), 250*time.Millisecond, partition, name)
		if err != nil {
			t.Fatal(err)
		}
		command := map[bool]string{false: "release", true: "release --dry-run"}[dry]
		sum := 0.0
		for _, st := range e.Steps {
			sum += st.Seconds
		}
		switch {
		case e.Command != command || e.Graph != "karate" || e.NodeCount != g.N() || e.Tau != 2:
			t.Errorf("dry run %v: %s on %s (%d nodes) at τ = %g, want %s on karate (%d) at 2", dry, e.Command, e.Graph, e.NodeCount, e.Tau, command, g.N())
		case len(e.Steps) < 2 || e.Steps[0].Step != "load the graph" || e.Steps[0].Seconds != 0.25:
			t.Errorf("dry run %v: steps %+v, want the measured load (0.25 s) first, then the release's", dry, e.Steps)
		case sum != e.Seconds:
			t.Errorf("dry run %v: %g s in all, the steps sum to %g", dry, e.Seconds, sum)
		}
	}
}
