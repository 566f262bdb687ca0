package integration

import (
	"encoding/json"
	"strings"
	"testing"
)

// Finding 3 of issue 8: budget --init --ledger neo4j persists the scope
// (a :GraphcloakLedger node with the totals), budget reads it back, an
// unknown scope exits 3 naming the --init command, re-init with other
// totals is refused, and a release that passes its own (larger) totals
// never creates a scope.
func TestBudgetInitNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{10, 10}, 0.5, 0.1)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	conn := []string{"--ledger", "neo4j", "--uri", s.URI, "--user", s.User}
	scope := e.scope + "_b"
	t.Cleanup(func() {
		query(t, d, "MATCH (l:GraphcloakLedger) WHERE l.scope STARTS WITH $s DELETE l", map[string]any{"s": e.scope})
	})
	budget := func(args ...string) cliResult {
		return runCLI(t, s.Password, append(append([]string{"budget"}, conn...), args...)...)
	}
	if r := budget("--init", "--scope", scope, "--epsilon-total", "1", "--delta-total", "1e-6"); r.Code != 0 {
		t.Fatalf("budget --init: exit %d: %s", r.Code, r.Stderr)
	}
	recs := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.epsilon, l.delta, l.releases", map[string]any{"s": scope})
	if len(recs) != 1 || recs[0].Values[0] != 1.0 || recs[0].Values[1] != 1e-6 || recs[0].Values[2] != int64(0) {
		t.Fatalf("ledger node after budget --init: %v", recs)
	}
	r := budget("--scope", scope, "-o", "json")
	var out struct {
		Budget struct{ Epsilon, Delta float64 }
		Scopes []struct{ Scope string }
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || out.Budget.Epsilon != 1 || out.Budget.Delta != 1e-6 ||
		len(out.Scopes) != 1 || out.Scopes[0].Scope != scope {
		t.Fatalf("budget --scope: exit %d: %s %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := budget("--scope", scope+"_unknown"); r.Code != 3 || !strings.Contains(r.Stderr, "budget --init --ledger neo4j --scope "+scope+"_unknown") {
		t.Errorf("unknown scope: exit %d: %s", r.Code, r.Stderr)
	}
	if r := budget("--init", "--scope", scope, "--epsilon-total", "5", "--delta-total", "1e-6"); r.Code != 3 {
		t.Errorf("re-init with other totals: exit %d: %s", r.Code, r.Stderr)
	}
	if recs := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.epsilon", map[string]any{"s": scope}); recs[0].Values[0] != 1.0 {
		t.Errorf("re-init changed the budget to %v", recs[0].Values[0])
	}
	// A release with its own larger totals on a scope never created.
	args := replaceFlag(e.releaseArgs("E1", "--epsilon-total", "100"), "--scope", scope+"_new")
	r = runCLI(t, s.Password, args...)
	if r.Code != 3 || !strings.Contains(r.Stderr, "budget --init") {
		t.Errorf("release on a scope never created: exit %d: %s", r.Code, r.Stderr)
	}
	if n := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN count(l)", map[string]any{"s": scope + "_new"}); n[0].Values[0] != int64(0) {
		t.Error("a release created a ledger scope")
	}
	if propertyKeys(t, d)[e.write] {
		t.Error("the refused release wrote values")
	}
}
