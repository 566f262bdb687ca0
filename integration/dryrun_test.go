package integration

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestLocateDryRunNeo4j (issue 33): locate --dry-run on a release run
// and locate --private-answer --dry-run write nothing to the database —
// no run record, no node property, no ledger charge — and print what the
// localisation and the answer then do.
func TestLocateDryRunNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{20, 20}, 0.3, 0.03)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DELETE r", map[string]any{"p": e.scope})
	})
	rel := releaseJSON(t, e, e.releaseArgs("epoch-dry"))["runId"].(string)
	runs := func() int64 {
		return query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p RETURN count(r)", map[string]any{"p": e.scope})[0].Values[0].(int64)
	}
	spent := func() any {
		return query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases", map[string]any{"s": e.scope})[0].Values[0]
	}
	props, nRuns, charges := fmt.Sprint(labelPropertyKeys(t, d, f.Label)), runs(), spent()
	unchanged := func(what string) {
		t.Helper()
		if after := fmt.Sprint(labelPropertyKeys(t, d, f.Label)); after != props || runs() != nRuns || spent() != charges {
			t.Fatalf("%s wrote: properties %s → %s, %d → %d runs, ledger releases %v → %v", what, props, after, nRuns, runs(), charges, spent())
		}
	}

	r := runCLI(t, s.Password, e.locateArgs(rel, "--dry-run", "--forecast-trials", "10")...)
	if r.Code != 0 {
		t.Fatalf("locate --dry-run: exit %d: %s", r.Code, r.Stderr)
	}
	unchanged("locate --dry-run")
	var dry struct {
		DryRun          bool
		ReleaseRun      string
		Sigma           float64
		WriteProperties map[string]string
		Forecast        *struct{ CommunityAccuracy float64 }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &dry); err != nil || !dry.DryRun || dry.ReleaseRun != rel || dry.Forecast == nil ||
		dry.WriteProperties["mass"] != e.mass || dry.WriteProperties["rank"] != e.rank {
		t.Fatalf("dry run %+v (%v): %s", dry, err, r.Stdout)
	}
	r = runCLI(t, s.Password, e.locateArgs(rel, "--forecast-trials", "10")...)
	var sum struct {
		Sigma    float64
		Forecast *struct{ CommunityAccuracy float64 }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); r.Code != 0 || err != nil || sum.Sigma != dry.Sigma ||
		sum.Forecast == nil || sum.Forecast.CommunityAccuracy != dry.Forecast.CommunityAccuracy {
		t.Fatalf("locate: exit %d, %+v; the dry run said %+v: %s", r.Code, sum, dry, r.Stderr)
	}
	if n := countWritten(t, d, f.Label, dry.WriteProperties["rank"]); n != int64(len(f.Keys)) {
		t.Errorf("%d nodes hold %s, want every node", n, dry.WriteProperties["rank"])
	}

	props, nRuns, charges = fmt.Sprint(labelPropertyKeys(t, d, f.Label)), runs(), spent()
	answer := append([]string{"locate"}, e.projectionFlags()...)
	answer = append(answer, "--private-answer", "--value-property", "obs", "--communities", "property:community",
		"--tau", "0.5", "--epsilon", "1", "--ledger", "neo4j", "--scope", e.scope, "--epoch", "answer-dry", "--dry-run", "-o", "json")
	r = runCLI(t, s.Password, answer...)
	if r.Code != 0 {
		t.Fatalf("locate --private-answer --dry-run: exit %d: %s", r.Code, r.Stderr)
	}
	unchanged("locate --private-answer --dry-run")
	var plan struct {
		DryRun      bool
		Calibration struct{ Rho float64 }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &plan); err != nil || !plan.DryRun || !(plan.Calibration.Rho > 0) {
		t.Fatalf("answer dry run %+v (%v): %s", plan, err, r.Stdout)
	}
}
