package job_test

import (
	"context"
	"reflect"
	"testing"

	. "github.com/graphcloak/graphcloak/job"
)

// A localisation's dry run is its plan: it takes no step on the store
// (no claim, no run record, no node written), and what it prints — σ, τ,
// the communities, the properties it would write, the forecast — is what
// the localisation of the same plan then does.
func TestLocateDryRunIsThePlan(t *testing.T) {
	f := locateFixture(t)
	runs := len(f.mem.Runs())
	spec := f.locateSpec("l1")
	spec.DryRun, spec.ForecastTrials = true, 5
	p, err := PlanLocate(context.Background(), spec, f.locateEnv(f.graph))
	if err != nil {
		t.Fatal(err)
	}
	dry := p.Summary
	if steps := f.mem.Steps(); len(steps) != 0 || len(f.mem.Runs()) != runs || f.mem.Node(f.graph.Key(0))["rank"] != nil {
		t.Fatalf("the dry run took steps %q, %d runs (was %d)", steps, len(f.mem.Runs()), runs)
	}
	if !dry.DryRun || dry.Report != nil || dry.RunID != "" || dry.ReleaseRun != "r1" || dry.Forecast == nil ||
		dry.WriteProperties == nil || *dry.WriteProperties != locateProps || !(dry.Sigma > 0) || dry.CommunityCount == 0 {
		t.Fatalf("dry run summary %+v", dry)
	}
	if _, err := ExecuteLocate(context.Background(), p); err == nil || len(f.mem.Steps()) != 0 {
		t.Fatalf("a dry run's plan executed: %v, steps %q", err, f.mem.Steps())
	}

	spec.DryRun = false
	sum, err := f.locate(spec, f.graph)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sigma != dry.Sigma || sum.Tau != dry.Tau || sum.Estimator != dry.Estimator || sum.CommunityCount != dry.CommunityCount ||
		sum.ReleaseRun != dry.ReleaseRun || !reflect.DeepEqual(sum.WriteProperties, dry.WriteProperties) {
		t.Errorf("located %+v, the dry run said %+v", sum, dry)
	}
	if !reflect.DeepEqual(sum.Forecast, dry.Forecast) {
		t.Errorf("forecast %+v, the dry run said %+v", sum.Forecast, dry.Forecast)
	}
	if got := f.run("l1").Extra["communityCount"]; got != int64(dry.CommunityCount) {
		t.Errorf("the located nodes are in %v communities, the dry run said %d", got, dry.CommunityCount)
	}
	w := dry.WriteProperties
	for i := 0; i < f.graph.N(); i++ {
		n := f.mem.Node(f.graph.Key(i))
		for _, prop := range []string{w.Mass, w.Community, w.Probability, w.Rank} {
			if _, ok := n[prop]; !ok {
				t.Fatalf("node %s lacks %s, which the dry run said would be written: %v", f.graph.Key(i), prop, n)
			}
		}
	}
}

// A private answer's dry run reads the ledger and is refused as the
// answer would be, but charges, claims and draws nothing; the answer of
// the same plan then uses the calibration it printed and charges its ρ.
func TestAnswerDryRunIsThePlan(t *testing.T) {
	f := answerFixture(t, 10)
	spec := f.answerSpec("a1")
	spec.DryRun = true
	p, err := PlanAnswer(context.Background(), spec, f.answerEnv())
	if err != nil {
		t.Fatal(err)
	}
	dry := p.Summary
	for _, s := range f.mem.Steps() {
		if s != "ledger charged" && s != "ledger balance" {
			t.Fatalf("the dry run took step %q (steps %q): it may only read the ledger", s, f.mem.Steps())
		}
	}
	if f.mem.Charges() != 0 || len(f.mem.Runs()) != 0 {
		t.Fatalf("the dry run charged %d times, started %d runs", f.mem.Charges(), len(f.mem.Runs()))
	}
	if !dry.DryRun || dry.Answer != nil || dry.Calibration == nil || dry.Balance == nil || dry.Forecast == nil {
		t.Fatalf("dry run summary %+v", dry)
	}
	if _, err := ExecuteAnswer(context.Background(), p); err == nil || f.mem.Charges() != 0 {
		t.Fatalf("a dry run's plan executed: %v, %d charges", err, f.mem.Charges())
	}

	spec.DryRun = false
	p, err = PlanAnswer(context.Background(), spec, f.answerEnv())
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ExecuteAnswer(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sum.Answer.Calibration, *dry.Calibration) || !reflect.DeepEqual(sum.Forecast, dry.Forecast) {
		t.Errorf("answered with %+v (forecast %+v), the dry run said %+v (%+v)", sum.Answer.Calibration, sum.Forecast, *dry.Calibration, dry.Forecast)
	}
	if sum.Balance.RhoSpent != dry.Balance.RhoSpent+dry.Calibration.Rho || f.mem.Charges() != 1 {
		t.Errorf("ρ spent %v after the answer, %v before it and %v planned (%d charges)",
			sum.Balance.RhoSpent, dry.Balance.RhoSpent, dry.Calibration.Rho, f.mem.Charges())
	}

	// The epoch is charged now: its dry run is refused like its answer.
	spec.DryRun = true
	if _, err := PlanAnswer(context.Background(), spec, f.answerEnv()); err == nil {
		t.Error("a dry run of a charged epoch was not refused")
	}
}
