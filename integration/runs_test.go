package integration

import (
	"encoding/json"
	"strings"

	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// runs lists a scope's releases newest first with their privacy numbers;
// runs prune keeps the newest and deletes the rest of that scope only,
// never the published release.
func TestRunsHistoryAndPrune(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{20, 20}, 0.3, 0.02, 5)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	var last struct {
		RunID string `json:"runId"`
	}
	for _, epoch := range []string{"epoch-1", "epoch-2"} {
		r := runCLI(t, s.Password, e.releaseArgs(epoch)...)
		if r.Code != 0 {
			t.Fatalf("release %s: exit %d: %s", epoch, r.Code, r.Stderr)
		}
		if err := json.Unmarshal([]byte(r.Stdout), &last); err != nil {
			t.Fatal(err)
		}
	}
	conn := []string{"--uri", s.URI, "--user", s.User, "--database", "neo4j", "--scope", e.scope, "-o", "json"}
	list := func() []struct {
		Command, Status, Epoch string
		Sigma, Rho             float64
	} {
		t.Helper()
		r := runCLI(t, s.Password, append([]string{"runs", "--last", "0"}, conn...)...)
		if r.Code != 0 {
			t.Fatalf("runs: exit %d: %s", r.Code, r.Stderr)
		}
		validateSchema(t, "runs", r.Stdout)
		var out struct {
			Runs []struct {
				Command, Status, Epoch string
				Sigma, Rho             float64
				RhoRemaining           *float64
			}
		}
		if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, r.Stdout)
		}
		for _, run := range out.Runs {
			if run.Command == "release" && (run.RhoRemaining == nil || *run.RhoRemaining <= 0) {
				t.Errorf("release %s: budget left %v, want the scope's remaining ρ", run.Epoch, run.RhoRemaining)
			}
		}
		rows := make([]struct {
			Command, Status, Epoch string
			Sigma, Rho             float64
		}, len(out.Runs))
		for i, run := range out.Runs {
			rows[i].Command, rows[i].Status, rows[i].Epoch, rows[i].Sigma, rows[i].Rho = run.Command, run.Status, run.Epoch, run.Sigma, run.Rho
		}
		return rows
	}
	// The localisation of the second release carries its scope and epoch.
	if r := runCLI(t, s.Password, e.locateArgs(last.RunID)...); r.Code != 0 {
		t.Fatalf("locate: exit %d: %s", r.Code, r.Stderr)
	}
	runs := list()
	if len(runs) != 3 || runs[0].Command != "locate" || runs[0].Epoch != "epoch-2" || runs[1].Epoch != "epoch-2" || runs[2].Epoch != "epoch-1" {
		t.Fatalf("runs of the scope, newest first: %+v", runs)
	}
	// The second release wrote the same property: the first is superseded.
	for i, want := range []string{"succeeded", "superseded"} {
		if r := runs[i+1]; r.Command != "release" || r.Status != want || !(r.Sigma > 0) || !(r.Rho > 0) {
			t.Errorf("run %d: %+v, want a %s release with σ and ρ", i+1, r, want)
		}
	}
	svg := filepath.Join(t.TempDir(), "history.svg")
	if r := runCLI(t, s.Password, append([]string{"runs", "--plot", svg}, conn...)...); r.Code != 0 {
		t.Errorf("runs --plot: exit %d: %s", r.Code, r.Stderr)
	} else if st, err := os.Stat(svg); err != nil || st.Size() == 0 {
		t.Errorf("history picture not written: %v", err)
	}
	r := runCLI(t, s.Password, append([]string{"runs", "prune", "--keep", "1"}, conn...)...)
	if r.Code != 0 {
		t.Fatalf("prune: exit %d: %s", r.Code, r.Stderr)
	}
	// The published release (the newest succeeded one: its values are on
	// the nodes) is never pruned: only the superseded
	// one goes.
	var pr struct{ Deleted int }
	if err := json.Unmarshal([]byte(r.Stdout), &pr); err != nil || pr.Deleted != 1 {
		t.Errorf("prune deleted %d (%v), want 1", pr.Deleted, err)
	}
	validateSchema(t, "runs-prune", r.Stdout) // runs prune had no schema
	if runs := list(); len(runs) != 2 || runs[0].Command != "locate" || runs[1].Command != "release" || runs[1].Status != "succeeded" {
		t.Errorf("after prune --keep 1: %+v, want the locate and the published release", runs)
	}
	if r := runCLI(t, s.Password, e.locateArgs(last.RunID)...); r.Code != 0 {
		t.Errorf("locate on the published release after prune: exit %d: %s", r.Code, r.Stderr)
	}
	// The ledger keeps both charges.
	r = runCLI(t, s.Password, "budget", "--ledger", "neo4j", "--uri", s.URI, "--user", s.User, "--scope", e.scope, "-o", "json")
	var b struct {
		Scopes []struct{ Releases int }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &b); r.Code != 0 || err != nil || len(b.Scopes) != 1 || b.Scopes[0].Releases != 2 {
		t.Errorf("ledger after prune: exit %d, %s", r.Code, r.Stdout)
	}
	if r := runCLI(t, s.Password, append([]string{"runs", "prune"}, conn...)...); r.Code != 2 {
		t.Errorf("prune without --keep/--older-than: exit %d, want 2", r.Code)
	}
}

// validateSchema checks a JSON document against docs/schemas/NAME.schema.json.
func validateSchema(t *testing.T, name, doc string) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "docs", "schemas", name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	sch, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", name, err, doc)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s output does not match its schema: %v\n%s", name, err, doc)
	}
}

// A localisation's verdict, written on its run record in Neo4j, is the
// one runs shows: noiseDominated and noiseReason in JSON as locate printed
// them, and the VERDICT column of the table.
func TestRunsShowLocateVerdict(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{20, 20}, 0.3, 0.02, 7)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	r := runCLI(t, s.Password, e.releaseArgs("epoch-v")...)
	if r.Code != 0 {
		t.Fatalf("release: exit %d: %s", r.Code, r.Stderr)
	}
	var rel struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rel); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, s.Password, e.locateArgs(rel.RunID)...)
	if r.Code != 0 {
		t.Fatalf("locate: exit %d: %s", r.Code, r.Stderr)
	}
	var loc struct {
		NoiseDominated bool   `json:"noiseDominated"`
		NoiseReason    string `json:"noiseReason"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &loc); err != nil {
		t.Fatal(err)
	}
	conn := []string{"--uri", s.URI, "--user", s.User, "--database", "neo4j", "--scope", e.scope}
	r = runCLI(t, s.Password, append([]string{"runs", "-o", "json"}, conn...)...)
	if r.Code != 0 {
		t.Fatalf("runs: exit %d: %s", r.Code, r.Stderr)
	}
	validateSchema(t, "runs", r.Stdout)
	var out struct {
		Runs []struct {
			Command        string
			NoiseDominated *bool
			NoiseReason    string
			Chance         float64
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 2 || out.Runs[0].Command != "locate" {
		t.Fatalf("runs: %s", r.Stdout)
	}
	got := out.Runs[0]
	if got.NoiseDominated == nil || *got.NoiseDominated != loc.NoiseDominated || got.NoiseReason != loc.NoiseReason {
		t.Errorf("runs shows the localisation's verdict as %v %q, locate printed %v %q", got.NoiseDominated, got.NoiseReason, loc.NoiseDominated, loc.NoiseReason)
	}
	if !(got.Chance > 0 && got.Chance < 1) {
		t.Errorf("runs: chance %v, want 1/communities", got.Chance)
	}
	if out.Runs[1].NoiseDominated != nil {
		t.Errorf("runs: the release has a verdict (%v), want none", *out.Runs[1].NoiseDominated)
	}
	want := "answer"
	if loc.NoiseDominated {
		want = "noise"
	}
	r = runCLI(t, s.Password, append([]string{"runs"}, conn...)...)
	lines := strings.Split(r.Stdout, "\n")
	if r.Code != 0 || len(lines) < 2 || !strings.Contains(lines[0], "VERDICT") || !strings.Contains(lines[1], " "+want+" ") {
		t.Errorf("runs table: exit %d, want VERDICT %s on the locate row:\n%s", r.Code, want, r.Stdout)
	}
}
