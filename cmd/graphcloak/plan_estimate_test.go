package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestPlanEstimate: plan --estimate models Δ2 as sensitivity's cost model
// does (ChooseMethod: the same method, its seconds), the answer audit's pass as audit
// --estimate does (2·S·K·(2|E|+n) steps), counts the simulated releases
// (per ε: the row's trials and the mass curve's 9 points; the answer
// mode's) and prices them by trials it times, and says the audit is reused when --answer-cache holds a
// certificate that verifies.
func TestPlanEstimate(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	const spec = "pa:n=1000,m=3,seed=4"
	g, _, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err = laplacian.SortedByKey(g)
	if err != nil {
		t.Fatal(err)
	}
	cert := filepath.Join(t.TempDir(), "answer.json")
	plan := func(extra ...string) planEstimate {
		var out, errb strings.Builder
		args := append([]string{"plan", "--graph", spec, "--tau", "1", "--epsilon", "1,4", "--trials", "50", "--estimate", "-o", "json"}, extra...)
		if code := runArgs(context.Background(), args, &out, &errb); code != 0 {
			t.Fatalf("plan --estimate: exit %d: %s", code, errb.String())
		}
		var e planEstimate
		if err := json.Unmarshal([]byte(out.String()), &e); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return e
	}
	e := plan("--answer-cache", cert)
	want := sensitivity.ChooseMethod(g, 1, sensitivity.Options{})
	// The model times some of its bounds on the graph: the same method,
	// and seconds within a factor of 2 of a second call.
	if len(e.Steps) != 3 || !(e.Steps[0].Seconds > want.Seconds/2 && e.Steps[0].Seconds < 2*want.Seconds) || !strings.HasPrefix(e.Steps[0].Model, want.Name()) {
		t.Fatalf("steps %+v; want Δ2 first, about %g s by %s", e.Steps, want.Seconds, want.Name())
	}
	a := e.Steps[1].Audit
	if a == nil || a.Steps != 2*float64(a.Sources)*float64(a.ChebyshevDegree)*float64(2*g.NumEdges()+g.N()) || a.Sources != g.N()+256 {
		t.Errorf("the audit's model: %+v", a)
	}
	// The simulations: 2 ε × (the row + 9 masses) × 50 trials, and the
	// answer mode's 50, priced by trials timed on the graph.
	if sim := e.Steps[2]; e.Simulations != 2*(1+9)*50+50 || sim.Step != "simulated releases" || !(sim.Seconds > 0) ||
		!strings.HasPrefix(sim.Model, "1050 × ") || e.Seconds != e.Steps[0].Seconds+e.Steps[1].Seconds+sim.Seconds {
		t.Errorf("%d simulations (want %d), %+v, %g s in all", e.Simulations, 2*10*50+50, sim, e.Seconds)
	}
	if code := runArgs(context.Background(), []string{"audit", "--graph", spec, "--tau", "1", "--save", cert}, new(strings.Builder), new(strings.Builder)); code != 0 {
		t.Fatalf("audit: exit %d", code)
	}
	if e := plan("--answer-cache", cert); e.Steps[1].Seconds != 0 || !strings.HasPrefix(e.Steps[1].Model, "reused") {
		t.Errorf("with a certificate that verifies: %+v", e.Steps[1])
	}
}
