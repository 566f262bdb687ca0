package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestPrivateAnswerBrokenReadings (issue 70, item 4): a reading that is
// NaN, infinite, unreadable or missing, at node 1 (the first data row), 9 or 34, is refused
// by locate --private-answer with exit 3 and the same bytes on standard
// output and error (table and -o json) whichever node broke, each charged
// like an answer (issue 77: the charge comes before the readings); with --on-mismatch rr it is answered by randomized response, and
// only --diagnose names the node, on standard error.
func TestPrivateAnswerBrokenReadings(t *testing.T) {
	isolateConfig(t)
	ctx := context.Background()
	dir := t.TempDir()
	g, _ := laplacian.Karate()
	heat := heattest.PadeHeat(g, 1)
	ledger := filepath.Join(dir, "l.json")
	if _, stderr, code := runPipelineCLI(t, ctx, nil, "budget", "--init", "--ledger", ledger, "--scope", "s", "--epsilon-total", "40", "--delta-total", "1e-6", "--answer-epsilon", "40"); code != 0 {
		t.Fatal(stderr)
	}
	write := func(broken, how string) string {
		var b strings.Builder
		b.WriteString("node,value\n")
		for i := 0; i < g.N(); i++ {
			v := fmt.Sprintf("%.17g", 5*heat.At(i, 3))
			if g.Key(i) == broken {
				switch how {
				case "missing":
					continue
				default:
					v = how
				}
			}
			fmt.Fprintf(&b, "%s,%s\n", g.Key(i), v)
		}
		path := filepath.Join(dir, broken+how+".csv")
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	refused := 0
	for _, how := range []string{"nan", "inf", "-Inf", "oops", "missing"} {
		for _, output := range []string{"table", "json"} {
			seen := map[string]bool{}
			for _, node := range []string{"1", "9", "34"} { // "1" is the first data row
				stdout, stderr, code := runPipelineCLI(t, ctx, nil, "locate", "--graph", "karate", "--private-answer", "--values", write(node, how),
					"--ledger", ledger, "--scope", "s", "--epsilon", "1", "--tau", "1", "--epoch", fmt.Sprint("e", refused), "--forecast-trials", "0", "-o", output)
				refused++
				if code != 3 || !strings.Contains(stderr+stdout, "outside the model") {
					t.Fatalf("%s at node %s (%s): exit %d: %s%s", how, node, output, code, stdout, stderr)
				}
				seen[stdout+"\x00"+stderr] = true
			}
			if len(seen) != 1 {
				t.Errorf("%s (%s): the refusal differs by the node that broke: %v", how, output, seen)
			}
		}
	}
	if got := ledgerReleases(t, ledger, "s"); got != refused {
		t.Errorf("%d refusals left %d charges: each is charged like an answer", refused, got)
	}
	stdout, stderr, code := runPipelineCLI(t, ctx, nil, "locate", "--graph", "karate", "--private-answer", "--values", write("9", "nan"),
		"--ledger", ledger, "--scope", "s", "--epsilon", "1", "--tau", "1", "--epoch", "rr", "--forecast-trials", "0", "-o", "json",
		"--on-mismatch", "rr", "--diagnose")
	if code != 0 || !strings.Contains(stdout, `"exactSource": false`) || strings.Contains(stdout, "node 9") ||
		!strings.Contains(stderr, "NOT PRIVATE") || !strings.Contains(stderr, "node 9 ") {
		t.Errorf("rr with --diagnose: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
