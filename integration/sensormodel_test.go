package integration

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScopeSensorModelNeo4j (issue 77, item 1): the Neo4j ledger keeps a
// scope's sensor model with its budget (budget --init --sensor-noise):
// budget shows it, another model at --init is refused, an answer stating
// another model is refused with a usage error (exit 2) before the value
// property is read, and one stating none answers under the scope's (its
// δ > 0: the noise model's).
func TestScopeSensorModelNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{30, 30}, 0.3, 0.03)
	diffuseObs(t, f, 3, 0.5, 3)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	scope := e.scope + "_m"
	initArgs := []string{"budget", "--init", "--ledger", "neo4j", "--uri", s.URI, "--user", s.User,
		"--scope", scope, "--epsilon-total", "10", "--delta-total", "1e-5", "--answer-delta", "1e-6", "--sensor-noise", "0.005"}
	if r := runCLI(t, s.Password, initArgs...); r.Code != 0 {
		t.Fatalf("budget --init: exit %d: %s", r.Code, r.Stderr)
	}
	t.Cleanup(func() {
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge OR l:GraphcloakRun) AND l.scope = $s DELETE l", map[string]any{"s": scope})
	})
	r := runCLI(t, s.Password, "budget", "--ledger", "neo4j", "--uri", s.URI, "--user", s.User, "--scope", scope, "-o", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"noise": 0.005`) {
		t.Fatalf("budget: exit %d, want the model shown:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	initArgs[len(initArgs)-1] = "0.004"
	if r := runCLI(t, s.Password, initArgs...); r.Code != 3 || !strings.Contains(r.Stderr, "never changed") {
		t.Fatalf("budget --init with another model: exit %d: %s", r.Code, r.Stderr)
	}
	args := append([]string{"locate"}, e.projectionFlags()...)
	args = append(args, "--private-answer", "--value-property", "obs", "--communities", "property:community",
		"--tau", "0.5", "--epsilon", "1", "--ledger", "neo4j", "--scope", scope, "--forecast-trials", "0", "-o", "json")
	r = runCLI(t, s.Password, append(args, "--epoch", "m1", "--sensor-noise", "0.001")...)
	if r.Code != 2 || !strings.Contains(r.Stderr, "ν=0.005") {
		t.Fatalf("another model stated: exit %d, want 2 naming the scope's:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = runCLI(t, s.Password, append(args, "--epoch", "m2")...)
	var sum struct{ Answer struct{ Delta float64 } }
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &sum) != nil || !(sum.Answer.Delta > 0) {
		t.Fatalf("no model stated: exit %d, δ %g; want the scope's noise model:\n%s", r.Code, sum.Answer.Delta, r.Stderr)
	}
}
