package job

import (
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// A localisation's cost work detects only leiden and louvain, simulates
// its forecast at the released values' τ and σ with the spec's trials,
// estimator and seed, and writes back only when it writes to Neo4j; a
// private answer's runs the audit with the spec's certifier, one source.
func TestLocateCostWork(t *testing.T) {
	g, _, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		communities            string
		neo4j, stream, dryRun  bool
		wantDetect, wantWrites bool
	}{
		{"leiden", true, false, false, true, true},
		{"louvain", true, true, false, true, false},
		{"gds:leiden", true, false, true, false, false},
		{"property:c", false, false, false, false, false},
		{"file:c.csv", true, false, false, false, true},
	} {
		s := LocateSpec{Communities: c.communities, Neo4j: c.neo4j, Stream: c.stream, DryRun: c.dryRun,
			Sources: 0, ForecastTrials: 30, Estimator: "greedy", Seed: 9}
		w := s.CostWork(g, 1.5, 0.25)
		f := w.Forecast
		switch {
		case w.Detects != c.wantDetect || w.WriteBack != c.wantWrites || w.PrivateAnswer:
			t.Errorf("%+v: detects %v, writes %v, answer %v", c, w.Detects, w.WriteBack, w.PrivateAnswer)
		case f.Graph != g || f.Tau != 1.5 || f.Sigma != 0.25 || f.Sources != 1 || f.Trials != 30 || f.Estimator != "greedy" ||
			f.Seed != 9 || f.Mechanism != privacy.MechanismDefault:
			t.Errorf("%+v: forecast %+v", c, f)
		}
	}

	a := AnswerSpec{Communities: "leiden", Tau: 2, ForecastTrials: 20, Estimator: "posterior", Seed: 4, FitTolerance: 0.1, CachePath: "a.json"}
	w := a.CostWork(g, 0.5, "reused")
	if !w.PrivateAnswer || !w.Detects || w.WriteBack || w.AuditReused != "reused" || w.Forecast.Tau != 2 || w.Forecast.Sigma != 0.5 ||
		w.Forecast.Sources != 1 || w.Certifier.Tol != 0.1 || w.Certifier.SensorNoise != 0 {
		t.Errorf("private answer: %+v", w)
	}
	// The sensors' noise: relative as stated, or in reading units
	// (ν = s·n/m, recovery.SensorNoiseFromRMS).
	a.SensorNoise = 0.01
	if got := a.Certifier(g.N()).SensorNoise; got != 0.01 {
		t.Errorf("relative noise: ν = %g, want 0.01", got)
	}
	a.SensorNoise, a.SensorNoiseRMS, a.MinSourceMass = 0, 0.2, 10
	if got, want := a.Certifier(g.N()).SensorNoise, recovery.SensorNoiseFromRMS(0.2, 10, g.N()); got != want || got == 0 {
		t.Errorf("noise in reading units: ν = %g, want %g", got, want)
	}
}
