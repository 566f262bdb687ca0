package experiment

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestLineRunChecked: the line experiment's request becomes the experiment
// with fixed or private noise (the other noise's settings cleared), and
// each bad value is refused as bad input naming its parameter.
func TestLineRunChecked(t *testing.T) {
	base := func() LineRun {
		return LineRun{Line: Line{N: 100, M: 50, T: 0.05, Sigma: 0.1, Delta: 1e-5, Sources: []float64{0.24, 0.76},
			Trials: 20, Estimator: recovery.Default, Seed: 3}, MechanismName: "discrete"}
	}
	r := base()
	e, err := r.Checked()
	if err != nil || e.N != 100 || e.M != 50 || e.T != 0.05 || e.Sigma != 0.1 || e.Epsilon != 0 || e.Delta != 0 || e.Trials != 20 || e.Seed != 3 || len(e.Sources) != 2 {
		t.Errorf("fixed σ: %+v, %v", e, err)
	}
	r.Private, r.Epsilon = true, 2
	e, err = r.Checked()
	if err != nil || e.Sigma != 0 || e.Epsilon != 2 || e.Delta != 1e-5 || e.Mechanism != privacy.MechanismDiscrete {
		t.Errorf("private σ: %+v, %v", e, err)
	}
	for _, c := range []struct {
		name, flag string
		change     func(*LineRun)
	}{
		{"grid", "--n", func(r *LineRun) { r.N = 1 }},
		{"sensors", "--m", func(r *LineRun) { r.M = 0 }},
		{"trials", "--trials", func(r *LineRun) { r.Trials = 0 }},
		{"no sources", "--sources", func(r *LineRun) { r.Sources = nil }},
		{"source outside", "--sources", func(r *LineRun) { r.Sources = []float64{1.5} }},
		{"tau", "--tau", func(r *LineRun) { r.T = -1 }},
		{"alpha", "--alpha", func(r *LineRun) { r.Alpha = -1 }},
		{"sigma", "--sigma", func(r *LineRun) { r.Sigma = 0 }},
		{"epsilon", "--epsilon", func(r *LineRun) { r.Private, r.Epsilon = true, 0 }},
		{"delta", "--delta", func(r *LineRun) { r.Private, r.Epsilon, r.Delta = true, 1, 1 }},
		{"mechanism", "--mechanism", func(r *LineRun) { r.Private, r.Epsilon, r.MechanismName = true, 1, "bogus" }},
		{"estimator", "--estimator", func(r *LineRun) { r.Estimator = "bogus" }},
		{"plot", "--plot", func(r *LineRun) { r.Plot = "x.bogus" }},
	} {
		r := base()
		c.change(&r)
		_, err := r.Checked()
		if err == nil || !strings.Contains(errkind.Render(err, flag), c.flag) || errkind.Of(err) != errkind.BadInput {
			t.Errorf("%s: %v (kind %v), want bad input naming %s", c.name, err, errkind.Of(err), c.flag)
		}
	}
}

// goodGraphRun is a private graph experiment whose every setting passes.
func goodGraphRun() GraphRun {
	return GraphRun{Graph: "karate", Taus: []float64{1}, Epsilons: []float64{4}, Delta: 0.1, Mechanism: "discrete",
		Alpha: 1, Sources: 1, Trials: 2, Estimator: recovery.Default, Seed: 1, Workers: 1, Resolution: 1}
}

// TestGraphRunCheck: each out-of-range setting of the graph experiment is
// refused as bad input naming its parameter, a given σ skips the (ε, δ)
// checks, and the graph's own checks (sources, mechanism) refuse as bad
// input too.
func TestGraphRunCheck(t *testing.T) {
	if err := goodGraphRun().Check(); err != nil {
		t.Fatalf("good run: %v", err)
	}
	fixed := goodGraphRun()
	fixed.Sigma, fixed.Epsilons, fixed.Delta = 0.5, []float64{0}, 7
	if err := fixed.Check(); err != nil {
		t.Errorf("a fixed σ checks no (ε, δ): %v", err)
	}
	for _, c := range []struct {
		flag   string
		change func(*GraphRun)
	}{
		{"--plot", func(r *GraphRun) { r.Plot = "x.txt" }},
		{"--trials", func(r *GraphRun) { r.Trials = 0 }},
		{"--sources", func(r *GraphRun) { r.Sources = 0 }},
		{"--tau", func(r *GraphRun) { r.Taus = []float64{1, -1} }},
		{"--alpha", func(r *GraphRun) { r.Alpha = 0 }},
		{"--resolution", func(r *GraphRun) { r.Resolution = 0 }},
		{"--sigma", func(r *GraphRun) { r.Sigma = -1 }},
		{"--epsilon", func(r *GraphRun) { r.Epsilons = []float64{4, 0} }},
		{"--delta", func(r *GraphRun) { r.Delta = 1 }},
		{"--estimator", func(r *GraphRun) { r.Estimator = "x" }},
	} {
		r := goodGraphRun()
		c.change(&r)
		err := r.Check()
		if err == nil || !strings.HasPrefix(errkind.Render(err, flag), c.flag) || errkind.Of(err) != errkind.BadInput {
			t.Errorf("%s: %v (kind %v), want bad input naming it", c.flag, err, errkind.Of(err))
		}
	}
	g, _, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	many, odd := goodGraphRun(), goodGraphRun()
	many.Sources, odd.Mechanism = g.N()+1, "x"
	for _, r := range []GraphRun{many, odd} {
		if _, err := r.Simulation(g, nil, nil); errkind.Of(err) != errkind.BadInput {
			t.Errorf("sources %d, mechanism %q: %v, want bad input", r.Sources, r.Mechanism, err)
		}
	}
}

// TestGraphRunRun: one (τ, ε) is SweepGraph's one result labelled with the
// graph and the partition's kind; several are SweepGraph's results with
// their summary (Summarise) and the picture drawn; the private answer
// refuses a σ and several sources as usage errors.
func TestGraphRunRun(t *testing.T) {
	ctx := context.Background()
	g, part, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	r := goodGraphRun()
	sim, err := r.Simulation(g, part, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(ctx, sim, "planted", nil)
	if err != nil || out.One == nil || out.Sweep != nil || out.Answers != nil {
		t.Fatalf("one point: %+v, %v", out, err)
	}
	want, err := SweepGraph(ctx, GraphSweep{Taus: r.Taus, Epsilons: r.Epsilons, Graph: sim})
	if err != nil {
		t.Fatal(err)
	}
	want[0].Graph, want[0].CommunitySource = "karate", "planted"
	if !reflect.DeepEqual(out.One, want[0]) {
		t.Errorf("one point:\n%+v\nwant SweepGraph's\n%+v", out.One, want[0])
	}

	r.Epsilons, r.Plot = []float64{1, 4}, filepath.Join(t.TempDir(), "sweep.png")
	out, err = r.Run(ctx, sim, "planted", nil)
	if err != nil || out.Sweep == nil || out.One != nil {
		t.Fatalf("two points: %+v, %v", out, err)
	}
	if len(out.Sweep.Experiments) != 2 || !reflect.DeepEqual(out.Sweep.Summary, Summarise(out.Sweep.Experiments)) || out.Sweep.Plot != r.Plot {
		t.Errorf("sweep: %d experiments, plot %q, summary %+v", len(out.Sweep.Experiments), out.Sweep.Plot, out.Sweep.Summary)
	}
	if _, err := os.Stat(r.Plot); err != nil {
		t.Errorf("the sweep's picture: %v", err)
	}
	for i, e := range out.Sweep.Experiments {
		if e.Epsilon != r.Epsilons[i] || e.Graph != "karate" || e.CommunitySource != "planted" {
			t.Errorf("experiment %d: ε %g, graph %q, communities %q", i, e.Epsilon, e.Graph, e.CommunitySource)
		}
	}

	for _, change := range []func(*GraphRun, *forecast.Simulation){
		func(r *GraphRun, s *forecast.Simulation) { r.Sigma, s.Sigma = 0.5, 0.5 },
		func(r *GraphRun, s *forecast.Simulation) { r.Sources, s.Sources = 2, 2 },
	} {
		a, s := goodGraphRun(), sim
		a.PrivateAnswer = true
		change(&a, &s)
		if _, err := a.Run(ctx, s, "planted", nil); errkind.Of(err) != errkind.Usage || !strings.HasPrefix(errkind.Render(err, flag), "--private-answer publishes") {
			t.Errorf("private answer with σ %g, %d sources: %v, want a usage error", a.Sigma, a.Sources, err)
		}
	}
}
