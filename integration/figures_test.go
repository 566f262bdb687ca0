package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestHistoryFigure draws docs/img/history.png for README: a day of
// hourly releases whose source moves from one community to another, each
// localised, then `runs --plot`. It runs only when GRAPHCLOAK_FIGURES_DIR
// names the output directory (scripts/figures.sh sets it); it still checks
// that every run succeeded and the picture was written.
func TestHistoryFigure(t *testing.T) {
	dir := os.Getenv("GRAPHCLOAK_FIGURES_DIR")
	if dir == "" {
		t.Skip("GRAPHCLOAK_FIGURES_DIR is not set (scripts/figures.sh sets it)")
	}
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{60, 60, 60}, 0.15, 0.004)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	e.tau, e.eps = 1, 2 // eight releases fit the scope's budget (ε_total 10)
	var edges []laplacian.Edge
	for _, r := range f.Rels {
		edges = append(edges, laplacian.Edge{U: int32(r.U), V: int32(r.V), Weight: r.W})
	}
	g, err := laplacian.FromEdges(len(f.Keys), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	act, err := expm.NewAction(g, e.tau, expm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The source — ten units of reading mass, e.g. a group of ten people,
	// while α = 1 protects each one — sits in block 0 for four hours, then
	// in block 2.
	sources := []int{5, 5, 7, 7, 130, 131, 131, 133}
	for h, src := range sources {
		x := make([]float64, g.N())
		x[src] = 10
		y := make([]float64, g.N())
		act.Apply(y, x, 1)
		rows := make([]any, len(y))
		for i, v := range y {
			rows[i] = map[string]any{"k": f.Keys[i], "v": v}
		}
		query(t, d, "UNWIND $rows AS r MATCH (n:`"+f.Label+"` {key: r.k}) SET n.obs = r.v", map[string]any{"rows": rows})
		r := runCLI(t, s.Password, e.releaseArgs("hour-"+string(rune('a'+h)))...)
		if r.Code != 0 {
			t.Fatalf("release %d: exit %d: %s", h, r.Code, r.Stderr)
		}
		var rel struct {
			RunID string `json:"runId"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &rel); err != nil {
			t.Fatal(err)
		}
		if r := runCLI(t, s.Password, e.locateArgs(rel.RunID)...); r.Code != 0 {
			t.Fatalf("locate %d: exit %d: %s", h, r.Code, r.Stderr)
		}
	}
	out := filepath.Join(dir, "history.png")
	if !filepath.IsAbs(out) {
		t.Fatalf("GRAPHCLOAK_FIGURES_DIR must be absolute, got %s", dir)
	}
	r := runCLI(t, s.Password, "runs", "--uri", s.URI, "--user", s.User, "--database", "neo4j",
		"--scope", e.scope, "--last", "0", "--plot", out)
	if r.Code != 0 {
		t.Fatalf("runs --plot: exit %d: %s", r.Code, r.Stderr)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("history picture not written: %v", err)
	}
}
