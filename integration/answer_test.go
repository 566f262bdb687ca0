package integration

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestPrivateAnswerNeo4j: locate --private-answer on a Neo4j projection
// reads the raw readings property, charges the Neo4j ledger once, writes no
// node property, and records the answer on a run record (command answer,
// succeeded, with the scope and epoch). The same epoch is never drawn twice.
func TestPrivateAnswerNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{30, 30}, 0.3, 0.03)
	diffuseObs(t, f, 7, 0.5, 3)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DELETE r", map[string]any{"p": e.scope})
	})
	args := append([]string{"locate"}, e.projectionFlags()...)
	args = append(args, "--private-answer", "--value-property", "obs", "--communities", "property:community",
		"--tau", "0.5", "--epsilon", "1.5", "--ledger", "neo4j", "--scope", e.scope, "--epoch", "answer-1",
		"--forecast-trials", "20", "-o", "json")
	before := labelPropertyKeys(t, d, f.Label)
	r := runCLI(t, s.Password, args...)
	if r.Code != 0 {
		t.Fatalf("locate --private-answer: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var sum struct {
		RunID  string
		Epoch  string
		Answer struct {
			Community   string
			Calibration struct{ Rho float64 }
		}
		Balance struct{ Releases int }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Answer.Community == "" || sum.Epoch != "answer-1" || sum.Balance.Releases != 1 || sum.Answer.Calibration.Rho != 1.125 {
		t.Fatalf("summary %+v", sum)
	}
	rec := runRecord(t, d, sum.RunID)
	if rec["command"] != "answer" || rec["status"] != "succeeded" || rec["scope"] != e.scope || rec["epoch"] != "answer-1" {
		t.Fatalf("run record %v", rec)
	}
	var params map[string]any
	if err := json.Unmarshal([]byte(rec["parameters"].(string)), &params); err != nil || params["community"] != sum.Answer.Community {
		t.Fatalf("run record parameters %v (%v), want community %q", rec["parameters"], err, sum.Answer.Community)
	}
	if after := labelPropertyKeys(t, d, f.Label); len(after) != len(before) {
		t.Fatalf("node properties changed: %v → %v", before, after)
	}
	// runs shows the published community in its own field and column.
	rr := runCLI(t, s.Password, "runs", "--uri", s.URI, "--user", s.User, "--database", "neo4j", "--scope", e.scope, "-o", "json")
	validateSchema(t, "runs", rr.Stdout)
	var listed struct {
		Runs []struct{ RunID, Command, PublishedCommunity, TopCommunity string }
	}
	if err := json.Unmarshal([]byte(rr.Stdout), &listed); err != nil || rr.Code != 0 {
		t.Fatalf("runs: exit %d, %v: %s", rr.Code, err, rr.Stderr)
	}
	found := false
	for _, run := range listed.Runs {
		if run.RunID == sum.RunID {
			found = run.Command == "answer" && run.PublishedCommunity == sum.Answer.Community && run.TopCommunity == ""
		}
	}
	if !found {
		t.Errorf("runs does not show answer %s's published community %q: %s", sum.RunID, sum.Answer.Community, rr.Stdout)
	}
	// The epoch is charged: a second answer is refused, nothing charged.
	if r2 := runCLI(t, s.Password, args...); r2.Code == 0 {
		t.Fatalf("a second answer of epoch answer-1 exited 0: %s", r2.Stdout)
	}
	b := runCLI(t, s.Password, "budget", "--ledger", "neo4j", "--uri", s.URI, "--user", s.User, "--scope", e.scope, "-o", "json")
	var bal struct{ Scopes []struct{ Releases int } }
	if err := json.Unmarshal([]byte(b.Stdout), &bal); err != nil || len(bal.Scopes) != 1 || bal.Scopes[0].Releases != 1 {
		t.Fatalf("budget after a refused retry: %s (%v)", b.Stdout, err)
	}
}

// labelPropertyKeys returns the distinct property keys of the label's nodes.
func labelPropertyKeys(t testing.TB, d neo4j.DriverWithContext, label string) []string {
	t.Helper()
	var keys []string
	for _, rec := range query(t, d, "MATCH (n:`"+label+"`) UNWIND keys(n) AS k RETURN DISTINCT k ORDER BY k", nil) {
		keys = append(keys, rec.Values[0].(string))
	}
	return keys
}

// TestServePrivateAnswer: serve --private-answer publishes one answer per
// slot, each its own run record (command answer, the slot's epoch), and
// charges each slot once.
func TestServePrivateAnswer(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{30, 30}, 0.3, 0.03)
	diffuseObs(t, f, 7, 0.5, 3)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	args := append([]string{"serve", "--schedule", "@every 1s", "--listen", "", "--max-runs", "2", "--private-answer",
		"--communities", "property:community"}, e.projectionFlags()...)
	args = append(args, "--value-property", "obs", "--tau", "0.5", "--epsilon", "1", "--ledger", "neo4j", "--scope", e.scope)
	srv := startServe(t, s, args)
	select {
	case err := <-srv.done:
		if err != nil {
			t.Fatalf("serve --max-runs 2: %v\n%s", err, srv.stderr.String())
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("serve --max-runs 2 still running after 3 minutes:\n%s", srv.stderr.String())
	}
	runs := query(t, d, "MATCH (r:GraphcloakRun {scope: $s}) RETURN r.command, r.status, r.epoch", map[string]any{"s": e.scope})
	epochs := map[any]bool{}
	for _, r := range runs {
		if r.Values[0] != "answer" || r.Values[1] != "succeeded" {
			t.Fatalf("run records %v, want only succeeded answers", runs)
		}
		epochs[r.Values[2]] = true
	}
	if len(runs) != 2 || len(epochs) != 2 {
		t.Fatalf("run records %v, want two answers with distinct epochs", runs)
	}
}

// diffuseObs sets the fixture's readings to one source of the given mass
// at node src after diffusion time τ on the weighted graph (as projected
// with --relationship-weight-property w): inside the private answer's model.
func diffuseObs(t *testing.T, f *fixture, src int, tau, mass float64) {
	t.Helper()
	edges := make([]laplacian.Edge, len(f.Rels))
	for i, r := range f.Rels {
		edges[i] = laplacian.Edge{U: int32(r.U), V: int32(r.V), Weight: r.W}
	}
	g, err := laplacian.FromEdges(len(f.Keys), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	act, err := expm.NewAction(g, tau, expm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f0 := make([]float64, g.N())
	f0[src] = mass
	act.Apply(f.Obs, f0, 1)
}

// TestPrivateAnswerOutsideModelNeo4j: readings of two sources are refused
// (exit 3) before anything is charged, and the run record says so in the
// one fixed text (no measured misfit: it would tell sources apart); the
// dry run reads no readings, so it cannot refuse them; with
// --on-mismatch rr the answer is randomized response and the run record
// carries exactSource false and the fixed mismatch text.
func TestPrivateAnswerOutsideModelNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{30, 30}, 0.3, 0.03)
	diffuseObs(t, f, 3, 0.5, 3)
	second := append([]float64(nil), f.Obs...)
	diffuseObs(t, f, 45, 0.5, 3)
	for i := range f.Obs {
		f.Obs[i] += second[i]
	}
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	args := append([]string{"locate"}, e.projectionFlags()...)
	args = append(args, "--private-answer", "--value-property", "obs", "--communities", "property:community",
		"--tau", "0.5", "--epsilon", "1", "--ledger", "neo4j", "--scope", e.scope,
		"--forecast-trials", "0", "-o", "json")
	// The dry run reads no readings: it cannot say whether they fit.
	r := runCLI(t, s.Password, append(args, "--epoch", "outside-1", "--dry-run")...)
	if r.Code != 0 || strings.Contains(r.Stderr+r.Stdout, "outside the model") {
		t.Fatalf("two sources, dry run: exit %d, want 0 and no word about the readings:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = runCLI(t, s.Password, append(args, "--epoch", "outside-1")...)
	if r.Code != 3 || !strings.Contains(r.Stderr+r.Stdout, recovery.OutsideModel) {
		t.Fatalf("two sources: exit %d, want 3 with the fixed text:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	recs := query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p AND r.epoch = 'outside-1' RETURN r.status, r.error", map[string]any{"p": e.scope})
	if len(recs) != 1 || recs[0].Values[0] != "failed" || !strings.Contains(fmt.Sprint(recs[0].Values[1]), recovery.OutsideModel) {
		t.Fatalf("the refused answer's run record: %v", recs)
	}
	spent := query(t, d, "MATCH (c:GraphcloakCharge) WHERE c.scope = $p RETURN count(c)", map[string]any{"p": e.scope})[0].Values[0].(int64)
	if spent != 1 {
		t.Fatalf("a refused answer left %d charges, want 1 (charged like an answer: issue 77)", spent)
	}
	r = runCLI(t, s.Password, append(args, "--epoch", "outside-2", "--on-mismatch", "rr")...)
	if r.Code != 0 {
		t.Fatalf("--on-mismatch rr: exit %d: %s", r.Code, r.Stderr)
	}
	var sum struct {
		RunID  string
		Answer struct {
			ExactSource bool
			Mismatch    string
			Calibration struct{ Mechanism string }
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Answer.ExactSource || sum.Answer.Mismatch != answer.AnsweredByRR || sum.Answer.Calibration.Mechanism != "randomized-response" {
		t.Fatalf("rr answer %+v", sum.Answer)
	}
	rec := runRecord(t, d, sum.RunID)
	var params map[string]any
	if err := json.Unmarshal([]byte(rec["parameters"].(string)), &params); err != nil || params["exactSource"] != false || params["mismatch"] != sum.Answer.Mismatch {
		t.Fatalf("run record parameters %v (%v)", rec["parameters"], err)
	}
}

// withoutLogLines is stderr without its log lines (time=…), which carry
// run ids and, under load, a slow server's warnings; none may name key.
func withoutLogLines(t *testing.T, stderr, key string) string {
	t.Helper()
	var kept []string
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(line, "time=") {
			kept = append(kept, line)
		} else if strings.Contains(line, "\""+key+"\"") || strings.Contains(line, "="+key+" ") {
			t.Errorf("a log line names the broken node %s: %s", key, line)
		}
	}
	return strings.Join(kept, "\n")
}

// TestPrivateAnswerBrokenReadingsNeo4j (issue 70, item 4): a value property
// that is not a number, or missing, at one node is refused in the one fixed
// sentence (exit 3, charged like an answer: issue 77), and neither the output nor the run
// record names the node, whichever node broke.
func TestPrivateAnswerBrokenReadingsNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{30, 30}, 0.3, 0.03)
	diffuseObs(t, f, 3, 0.5, 3)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	args := append([]string{"locate"}, e.projectionFlags()...)
	args = append(args, "--private-answer", "--value-property", "obs", "--communities", "property:community",
		"--tau", "0.5", "--epsilon", "0.5", "--ledger", "neo4j", "--scope", e.scope, "--forecast-trials", "0", "-o", "json")
	texts := map[string]bool{}
	for i, set := range []string{"n.obs = 'oops'", "n.obs = null"} {
		for _, key := range []int{7, 44} {
			query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.key = $k SET "+set, map[string]any{"k": f.Keys[key]})
			epoch := fmt.Sprintf("broken-%d-%d", i, key)
			r := runCLI(t, s.Password, append(args, "--epoch", epoch)...)
			query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.key = $k SET n.obs = $v", map[string]any{"k": f.Keys[key], "v": f.Obs[key]})
			if r.Code != 3 || !strings.Contains(r.Stderr+r.Stdout, recovery.OutsideModel) {
				t.Fatalf("%s at %d: exit %d, want 3 with the fixed text:\n%s%s", set, key, r.Code, r.Stdout, r.Stderr)
			}
			recs := query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p AND r.epoch = $e RETURN r.error", map[string]any{"p": e.scope, "e": epoch})
			if len(recs) != 1 {
				t.Fatalf("%s at %d: %d run records", set, key, len(recs))
			}
			texts[r.Stdout+"\x00"+withoutLogLines(t, r.Stderr, fmt.Sprint(f.Keys[key]))+"\x00"+fmt.Sprint(recs[0].Values[0])] = true
		}
	}
	if len(texts) != 1 {
		t.Errorf("the refusals differ by the node that broke: %v", texts)
	}
	if n := query(t, d, "MATCH (c:GraphcloakCharge) WHERE c.scope = $p RETURN count(c)", map[string]any{"p": e.scope})[0].Values[0].(int64); n != 4 {
		t.Fatalf("4 refused answers left %d charges, want 4 (a refusal is charged like an answer)", n)
	}
}
