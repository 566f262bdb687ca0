package integration

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestLocateDryRunNeo4j: locate --dry-run on a release run
// and locate --private-answer --dry-run write nothing to the database —
// no run record, no node property, no ledger charge — and print what the
// localisation and the answer then do.
func TestLocateDryRunNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{20, 20}, 0.3, 0.03)
	diffuseObs(t, f, 5, 0.5, 40) // a source the release's verdict can see (its forecast is at the mass it carries)
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

// TestReleaseDryRunNeo4j: release --dry-run on Neo4j with the
// Neo4j ledger reads the ledger and the epoch's earlier run and writes
// nothing — no run record, no node property, no charge — and says what the
// release then does: charge ρ from the balance it printed (fresh), nothing
// (already published), or the release's refusal and exit code (another
// write property: 3; over budget: 5).
func TestReleaseDryRunNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{15, 15}, 0.4, 0.05)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DETACH DELETE r", map[string]any{"p": e.scope})
	})
	state := func() string {
		runs := query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p RETURN count(r)", map[string]any{"p": e.scope})[0].Values[0]
		spent := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.spent, l.releases", map[string]any{"s": e.scope})[0].Values
		return fmt.Sprint(labelPropertyKeys(t, d, f.Label), runs, spent)
	}
	type summary struct {
		DryRun, AlreadyPublished bool
		RunID, Step              string
		Rho, Sigma, RhoSpent     float64
		Balance                  *struct{ RhoSpent, RhoRemaining float64 }
	}
	dry := func(args []string) (summary, cliResult) {
		t.Helper()
		before := state()
		r := runCLI(t, s.Password, append(args, "--dry-run", "--forecast-trials", "0")...)
		if after := state(); after != before {
			t.Fatalf("the dry run wrote: %s → %s", before, after)
		}
		var sum summary
		if r.Code == 0 {
			if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil || !sum.DryRun {
				t.Fatalf("dry run %v: %s", err, r.Stdout)
			}
		}
		return sum, r
	}

	plan, r := dry(e.releaseArgs("e1"))
	if r.Code != 0 || plan.Step != "fresh" || plan.Balance == nil || !(plan.Rho > 0) || !(plan.Balance.RhoRemaining > 0) {
		t.Fatalf("dry run: exit %d, %+v: %s", r.Code, plan, r.Stderr)
	}
	rel := releaseJSON(t, e, e.releaseArgs("e1"))
	if rel["rho"] != plan.Rho || rel["sigma"] != plan.Sigma || rel["rhoSpent"].(float64) < plan.Balance.RhoSpent+plan.Rho*(1-1e-12) {
		t.Errorf("release ρ %v σ %v spent %v; the dry run said ρ %v σ %v from spent %v", rel["rho"], rel["sigma"], rel["rhoSpent"], plan.Rho, plan.Sigma, plan.Balance.RhoSpent)
	}
	if plan, r = dry(e.releaseArgs("e1")); r.Code != 0 || plan.Step != "already published" || !plan.AlreadyPublished || plan.RunID != rel["runId"] {
		t.Errorf("dry run of the published epoch: exit %d, %+v: %s", r.Code, plan, r.Stderr)
	}
	other := append(e.releaseArgs("e1"), "--write-property", e.write+"X")
	if _, r = dry(other); r.Code != 3 {
		t.Errorf("dry run to another write property: exit %d, want 3: %s", r.Code, r.Stderr)
	}
	over := append(e.releaseArgs("e2"), "--epsilon", "20")
	_, r = dry(over)
	rr := runCLI(t, s.Password, over...)
	if r.Code != 5 || rr.Code != 5 {
		t.Errorf("over budget: dry run exit %d (%s), release exit %d (%s); want 5", r.Code, r.Stderr, rr.Code, rr.Stderr)
	}
}
