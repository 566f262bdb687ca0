package experiment

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
)

// The sweep visits τ by τ and, under privacy, every ε at each; a fixed σ
// runs once per τ.
func TestSweepGraph(t *testing.T) {
	g, part, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	base := forecast.Simulation{Graph: g, Partition: part, Delta: 1e-6, Alpha: 1, Sources: 1, Trials: 4, Estimator: "posterior", Seed: 1, Workers: 1}
	for _, c := range []struct {
		name  string
		sigma float64
		want  [][2]float64 // τ, ε of each result
	}{
		{"private", 0, [][2]float64{{0.5, 1}, {0.5, 4}, {2, 1}, {2, 4}}},
		{"fixed σ", 0.1, [][2]float64{{0.5, 0}, {2, 0}}},
	} {
		s := GraphSweep{Graph: base, Taus: []float64{0.5, 2}, Epsilons: []float64{1, 4}}
		s.Graph.Sigma = c.sigma
		rs, err := SweepGraph(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(rs) != len(c.want) {
			t.Fatalf("%s: %d results, want %d", c.name, len(rs), len(c.want))
		}
		for i, r := range rs {
			if r.Tau != c.want[i][0] || (c.sigma == 0 && r.Epsilon != c.want[i][1]) {
				t.Errorf("%s: result %d at τ %g, ε %g; want %v", c.name, i, r.Tau, r.Epsilon, c.want[i])
			}
		}
	}
}

// Every τ gets a forecast at every ε, each with its ε's ceiling, the same
// at every τ. The calibrations (τ × ε) and the ceilings (ε) report their
// progress as steps of their own, which end done.
func TestSweepAnswers(t *testing.T) {
	g, part, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	last := map[string][2]int{}
	s := GraphSweep{Graph: forecast.Simulation{Graph: g, Partition: part, Delta: 1e-6, Alpha: 1, Trials: 4, Estimator: "posterior", Seed: 1, Workers: 1},
		Taus: []float64{0.5, 2}, Epsilons: []float64{2, 4},
		Progress: func(label string) func(done, total int) {
			return func(done, total int) { last[label] = [2]int{done, total} }
		}}
	fs, err := SweepAnswers(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4 {
		t.Fatalf("%d forecasts, want 4", len(fs))
	}
	if last["answer calibrations"] != [2]int{4, 4} || last["routed ceilings"] != [2]int{2, 2} {
		t.Errorf("progress ended at %v: want the calibrations 4/4 and the ceilings 2/2", last)
	}
	if fs[0].Ceiling <= 0 || fs[0].Ceiling != fs[2].Ceiling || fs[0].Delta != 1e-6 {
		t.Errorf("ceilings %v and %v, δ %v: want one positive ceiling per ε and the sweep's δ", fs[0].Ceiling, fs[2].Ceiling, fs[0].Delta)
	}
}
