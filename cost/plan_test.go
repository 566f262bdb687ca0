package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestPricePool: a plan's first line prices the per-node
// forecasts' trials without running any — each draw at
// PerNodeTrialSeconds (3.2 column actions of K·(2|E|+n) steps at the
// machine's step rate and 0.32 µs a node, read back from its account) and
// each score at scoreNodeSeconds a node; a graph whose action is dense
// is not priced.
func TestPricePool(t *testing.T) {
	g, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	c, ok := pricePool(forecast.Simulation{Graph: g, Tau: 1})
	if !ok {
		t.Fatal("a 6 400-node grid is not priced")
	}
	var actions, ns, nodeMicros, scoreNs float64
	var K int
	if _, err := fmt.Sscanf(c.How, "priced at %g column actions of K = %d at this machine's %g ns a step and %g µs a node, scores at %g ns a node",
		&actions, &K, &ns, &nodeMicros, &scoreNs); err != nil {
		t.Fatalf("%q: %v", c.How, err)
	}
	draw := actions*float64(K)*float64(2*g.NumEdges()+g.N())*ns*1e-9 + nodeMicros*1e-6*float64(g.N())
	// The step rate is told to three digits: up to 0.5 % off.
	if math.Abs(c.Draw-draw) > 5e-3*draw || c.Score != scoreNodeSeconds*float64(g.N()) || scoreNs != scoreNodeSeconds*1e9 || c.Setup != 0 || K < 2 {
		t.Errorf("%+v: draw %g by its account, score %g", c, draw, scoreNodeSeconds*float64(g.N()))
	}
	small, _, err := laplacian.Generate("complete:n=20")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := pricePool(forecast.Simulation{Graph: small, Tau: 1}); ok {
		t.Errorf("a dense action priced: %+v", c)
	}
}

// TestPlanPricesAtOneRate: a plan's first line measures this machine's
// step rate once — the audit's — and prices the per-node forecasts'
// trials at it too, so the two steps move together under load (two rates
// measured 0.15 s apart on a loaded machine differed 2–3×); without the
// audit the trials' price measures its own.
func TestPlanPricesAtOneRate(t *testing.T) {
	g, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	w := PlanWork{Simulation: forecast.Simulation{Graph: g, Tau: 1, Trials: 50}, Epsilons: []float64{1}, Modes: []string{forecast.ModePerNode, forecast.ModeAnswer}}
	e, err := Plan(w)
	if err != nil {
		t.Fatal(err)
	}
	a := e.AuditEstimate()
	var pn *Step
	for i := range e.Steps {
		if e.Steps[i].Step == "per-node forecasts" {
			pn = &e.Steps[i]
		}
	}
	if a == nil || a.MeasureMillis == 0 || pn == nil {
		t.Fatalf("steps %+v: want the audit measured and the per-node forecasts priced", e.Steps)
	}
	var ns float64
	at := strings.Index(pn.Model, "at this machine's ")
	if at < 0 {
		t.Fatalf("per-node forecasts %q: no rate", pn.Model)
	}
	if _, err := fmt.Sscanf(pn.Model[at:], "at this machine's %g ns a step", &ns); err != nil {
		t.Fatalf("%q: %v", pn.Model, err)
	}
	// %.3g of the same rate.
	if want, _ := strconv.ParseFloat(fmt.Sprintf("%.3g", a.NanosPerStep), 64); ns != want {
		t.Errorf("per-node trials priced at %g ns a step, the audit measured %g", ns, a.NanosPerStep)
	}
}

// TestPlanPricesCeilingsByTheirWork: the routed ceilings' step is priced
// at the work the ceiling does on the graph and partition
// (forecast.CountCeilingWork), per ε not kept — also where the partition
// is too fine to route (n·k above forecast.DefaultRoutedPairs), where the
// star bound's rows and dual steps still take seconds an ε (astro-ph,
// e-mail Enron; the model said 0 s there), and denser graphs of the same
// n and k cost more.
func TestPlanPricesCeilingsByTheirWork(t *testing.T) {
	for _, c := range []struct {
		spec string
		k    int
	}{{"pa:n=20000,m=2,seed=1", 1000}, {"pa:n=20000,m=4,seed=1", 1000}, {"pa:n=2000,m=3,seed=1", 20}} {
		g, _, err := laplacian.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		part := make([]int, g.N())
		for v := range part {
			part[v] = v % c.k
		}
		w := forecast.CountCeilingWork(g, part)
		e, err := Plan(PlanWork{Simulation: forecast.Simulation{Graph: g, Partition: part, Tau: 1}, Epsilons: []float64{1, 4, 8}})
		if err != nil {
			t.Fatal(err)
		}
		var st *Step
		for i := range e.Steps {
			if e.Steps[i].Step == "routed ceilings" {
				st = &e.Steps[i]
			}
		}
		if st == nil || !(w.Seconds > 0) || math.Abs(st.Seconds-3*w.Seconds) > 1e-9*st.Seconds {
			t.Fatalf("%s, k = %d: step %+v; want 3 ε at %g s (%v)", c.spec, c.k, st, w.Seconds, w)
		}
		if routes := g.N()*c.k <= forecast.DefaultRoutedPairs; w.Routed != routes {
			t.Errorf("%s, k = %d: routed %v", c.spec, c.k, w.Routed)
		}
		t.Logf("%s, k = %d: %s", c.spec, c.k, st.Model)
	}
}

// The answer calibrations' step prices what auditAnswers runs per ε: the
// calibrations (privacy.CalibrationSeconds of those ε) and its audit over every edge
// (privacy.AuditSeconds), whose work — and price — grows with the edges it
// compares, at the same nodes and communities.
func TestCalibrationStepPricesTheEdgeAudits(t *testing.T) {
	eps := []float64{0.5, 1, 2, 4, 8}
	audit := map[string]float64{}
	for _, pin := range []string{"0.05", "0.2"} {
		g, part, err := laplacian.Generate("sbm:sizes=150x150x150x150,pin=" + pin + ",pout=0.01,seed=2")
		if err != nil {
			t.Fatal(err)
		}
		w := PlanWork{Simulation: forecast.Simulation{Graph: g, Partition: part, Tau: 1, Trials: 50}, Epsilons: eps, Modes: []string{forecast.ModeAnswer}, Each: func(Step) {}}
		st := w.calibrations()
		cal := privacy.CalibrationSeconds(g, part, eps...)
		if !(st.Seconds > cal) {
			t.Fatalf("pin %s: %+v: the calibrations alone, not their audits", pin, st)
		}
		audit[pin] = (st.Seconds - cal) / float64(len(eps))
		if want := privacy.AuditSeconds(g, part); !(want > 0) || math.Abs(audit[pin]-want) > 1e-9*want {
			t.Fatalf("pin %s: %+v; want %d ε at %g s calibrating and %g s auditing", pin, st, len(eps), cal, want)
		}
	}
	if !(audit["0.2"] > audit["0.05"]) {
		t.Errorf("audits priced at %v: want the denser graph's dearer", audit)
	}
}

// TestPoolStepLeavesAKeptMassNullOut: with the mass bound's null quantile
// kept (Held.MassNull), the per-node step prices the evidence test's
// draws only — MassNullDraws column actions less, to the bit — and says
// so in its model.
func TestPoolStepLeavesAKeptMassNullOut(t *testing.T) {
	c := poolCost{Setup: 0.5, Draw: 0.02, Score: 1e-3, How: "test"}
	drawn, kept := poolStep(2, 1, 200, 2, c, Held{}), poolStep(2, 1, 200, 2, c, Held{MassNull: true})
	want := float64(forecast.MassNullDraws) * c.Draw / perNodeTrialActions
	if d := drawn.Seconds - kept.Seconds; math.Abs(d-want) > 1e-12*drawn.Seconds {
		t.Fatalf("kept quantile saves %g s, want %g (%d draws at %g s)", d, want, forecast.MassNullDraws, c.Draw/perNodeTrialActions)
	}
	nulls := fmt.Sprintf("%d null draws", 2*recovery.DefaultEvidenceDraws)
	if !strings.Contains(kept.Model, nulls) {
		t.Fatalf("model %q does not say %q", kept.Model, nulls)
	}
}

// TestPoolStepLeavesAKeptPoolOut: with the pool of trials kept
// (Held.Trials), the per-node step prices no draw at τ — ForecastRounds ×
// trials draws less, to the bit — and says the pool is read; at τ + τ′
// (another pool, not kept) its draws are still priced.
func TestPoolStepLeavesAKeptPoolOut(t *testing.T) {
	c := poolCost{Setup: 0.5, Draw: 0.02, Score: 1e-3, How: "test"}
	for _, taus := range []int{1, 2} {
		drawn, kept := poolStep(2, taus, 200, 2, c, Held{}), poolStep(2, taus, 200, 2, c, Held{Trials: true})
		want := float64(ForecastRounds*200) * c.Draw
		if d := drawn.Seconds - kept.Seconds; math.Abs(d-want) > 1e-12*drawn.Seconds {
			t.Fatalf("%d τ: a kept pool saves %g s, want %g", taus, d, want)
		}
		if !strings.Contains(kept.Model, "read from the store") || strings.Contains(drawn.Model, "read from the store") {
			t.Fatalf("models %q / %q: want only the kept one to say the pool is read", kept.Model, drawn.Model)
		}
	}
}

// TestMassBarCostIsTheStepsModel: plan's bar "forecasts by source mass"
// weighs its work by the prices the step's estimate uses (pricePool,
// poolStep): a trial scored at scoreNodeSeconds a node, a null draw at a
// perNodeTrialActions-th of a trial drawn. The weight of a draw follows
// the graph — a trial drawn is dearer against one scored where the action
// has more steps a node (a grid of degree 4 against a block model of
// degree ≈ 100) — and a dense action is not priced (the bar's own
// weights).
func TestMassBarCostIsTheStepsModel(t *testing.T) {
	ratio := map[string]float64{}
	for _, spec := range []string{"grid:rows=80,cols=80", "sbm:sizes=3200x3200,pin=0.03,pout=0.001,seed=3"} {
		g, _, err := laplacian.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		b := PlanWork{Simulation: forecast.Simulation{Graph: g, Tau: 1}}.MassBarCost()
		if !(b.Draw > 0) || b.Score != scoreNodeSeconds*float64(g.N()) || b.Null != b.Draw/perNodeTrialActions {
			t.Fatalf("%s: %+v; want a trial scored at %g s a node, a null a %g-th of a draw", spec, b, scoreNodeSeconds, perNodeTrialActions)
		}
		ratio[spec] = b.Draw / b.Score
	}
	if r := ratio["sbm:sizes=3200x3200,pin=0.03,pout=0.001,seed=3"] / ratio["grid:rows=80,cols=80"]; !(r > 1.5) {
		t.Errorf("a draw against a scoring %v: the denser graph's only %.2f× the grid's", ratio, r)
	}
	small, _, err := laplacian.Generate("complete:n=20")
	if err != nil {
		t.Fatal(err)
	}
	if b := (PlanWork{Simulation: forecast.Simulation{Graph: small, Tau: 1}}).MassBarCost(); b != (forecast.PilotCost{}) {
		t.Errorf("a dense action priced: %+v", b)
	}
}

// TestChanceRounds: the rounds at chance are VerdictRoundsAt's at a rate
// equal to the guess, max(1/k, the largest community's share) counted
// here by hand: one round where the largest community holds 6 % of the
// nodes (as astro-ph's), VerdictRounds where 300 communities hold under
// 1 % each (as LFR 2·10⁴'s), VerdictRounds without a partition.
func TestChanceRounds(t *testing.T) {
	big := make([]int, 10000) // community 0: 600 nodes, then 94 of 100
	for i := range big {
		if i >= 600 {
			big[i] = 1 + (i-600)/100
		}
	}
	small := make([]int, 9000) // 300 communities of 30
	for i := range small {
		small[i] = i / 30
	}
	for _, c := range []struct {
		name  string
		part  []int
		guess float64
	}{{"largest 6 %", big, 0.06}, {"300 of 30", small, 1.0 / 300}} {
		want, _ := forecast.VerdictRoundsAt(c.guess, c.guess, 200)
		if got := chanceRounds(c.part, 200); got != want {
			t.Errorf("%s: %d rounds, want %d", c.name, got, want)
		}
	}
	if r, _ := forecast.VerdictRoundsAt(0.06, 0.06, 200); r != 1 {
		t.Errorf("a guess of 6 %%: %d rounds, want 1", r)
	}
	if got := chanceRounds(small, 200); got != forecast.VerdictRounds {
		t.Errorf("300 communities of 30: %d rounds, want %d", got, forecast.VerdictRounds)
	}
	if got := chanceRounds(nil, 200); got != forecast.VerdictRounds {
		t.Errorf("no partition: %d rounds, want %d", got, forecast.VerdictRounds)
	}
}
