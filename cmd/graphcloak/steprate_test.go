package main

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// cancelOn is stderr that cancels once a line containing at is written:
// a plan stopped as its answer audit's pass starts.
type cancelOn struct {
	mu     sync.Mutex
	b      strings.Builder
	at     string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.at) {
		w.cancel()
	}
	return len(p), nil
}

func (w *cancelOn) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestPlanPassLineIsTheFirstLinesFigure: a plan's first line (its sum and
// the audit's own row) and the answer audit's line as its pass starts
// (passStarted, told the real pass's cost by the certifier) say one
// figure, because the pass's line is the first line's model itself
// (cost.Pass), not a second model: on e-mail Enron the first line said
// "audit 23 min 50 s" and the pass's line 0.4 s later "1 h 11 min" (two
// step rates measured under load). The plan is stopped as the pass
// starts. At τ = 4 the pass is 8·10¹⁰ steps: over longStep (5 s) on any
// machine up to 16 steps a nanosecond, so both lines are told.
func TestPlanPassLineIsTheFirstLinesFigure(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &cancelOn{at: " for the answer audit (n=", cancel: cancel}
	runArgs(ctx, []string{"plan", "--graph", "pa:n=6000,m=4,seed=1", "--tau", "4", "--epsilon", "1", "--trials", "50"}, new(strings.Builder), errw)
	said := errw.String()
	sum := regexp.MustCompile(`(?m)^estimated .+ for the plan's modelled steps \(answer audit ([^,]+), `).FindStringSubmatch(said)
	row := regexp.MustCompile(`(?m)^estimated (.+) for answer audit: `).FindStringSubmatch(said)
	pass := regexp.MustCompile(`(?m)^estimated (.+) for the answer audit \(n=(\d+), \|E\|=(\d+), (\d+) sources, K=(\d+), (\S+) steps at (\S+) ns a step measured on (\d+) cores\)$`).FindStringSubmatch(said)
	if sum == nil || row == nil || pass == nil {
		t.Fatalf("want the first line, the audit's row and the pass's line; said:\n%s", said)
	}
	if sum[1] != pass[1] || row[1] != pass[1] {
		t.Errorf("the first line says the audit takes %q (its row %q), the pass's line %q:\n%s", sum[1], row[1], pass[1], said)
	}
	// The pass's line is the model of the pass that ran: its cost is the
	// certifier's for the plan's options (recovery.EstimatePass; the
	// plan's pass keeps every edge's correlations for Δ2: EdgeTerms).
	g, _, err := laplacian.Generate("pa:n=6000,m=4,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := recovery.EstimatePass(g, 4, recovery.CertifierOptions{EdgeTerms: &recovery.EdgeTerms{}})
	if err != nil {
		t.Fatal(err)
	}
	w := answer.WorkEstimate{Step: "answer audit", Nodes: c.Nodes, Edges: c.Edges, Sources: c.Sources, ChebyshevDegree: c.Degree, Steps: c.Steps}
	if want := strings.Fields(w.String()); len(want) < 13 || !strings.Contains(pass[0], strings.Join(want[5:13], " ")) {
		t.Errorf("the pass's line %q is not of the pass %+v", pass[0], c)
	}
}
