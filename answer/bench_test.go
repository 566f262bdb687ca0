package answer

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// BenchmarkAnswerAudit times the private answer's model and audit —
// NewModel (every source fitted, the classes) and Audit (every edge)
// — on the edge list GRAPHCLOAK_BENCH_GRAPH with the communities
// GRAPHCLOAK_BENCH_COMMUNITIES (node,community CSV), at τ = 1
// and ε ∈ {2, 4, 8}, reporting each audit's worst loss over its bound and
// its accuracy (bench/utility/lfr.py makes LFR graphs: see bench/answer/run.sh).
func BenchmarkAnswerAudit(b *testing.B) {
	path, comm := os.Getenv("GRAPHCLOAK_BENCH_GRAPH"), os.Getenv("GRAPHCLOAK_BENCH_COMMUNITIES")
	if path == "" || comm == "" {
		b.Skip("GRAPHCLOAK_BENCH_GRAPH and GRAPHCLOAK_BENCH_COMMUNITIES name an edge list and its communities")
	}
	g, err := laplacian.LoadCSV(path, laplacian.Options{})
	if err != nil {
		b.Fatal(err)
	}
	part := readCommunities(b, g, comm)
	ctx := context.Background()
	for b.Loop() {
		m, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, eps := range []float64{2, 4, 8} {
			cal, err := privacy.CalibrateAnswer(ctx, m.Geometry, eps, 1, 0)
			if err != nil {
				b.Fatal(err)
			}
			a, err := m.Audit(ctx, cal)
			if err != nil || !a.Passed {
				b.Fatalf("audit %+v: %v", a, err)
			}
			b.ReportMetric(float64(a.Classes), "classes")
			b.ReportMetric(a.WorstLoss/a.Bound, fmt.Sprintf("loss/bound@ε=%g", eps))
			b.ReportMetric(a.Accuracy, fmt.Sprintf("accuracy@ε=%g", eps))
		}
	}
}

func readCommunities(b testing.TB, g *laplacian.Graph, path string) []int {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		b.Fatal(err)
	}
	ids := map[string]int{}
	part := make([]int, g.N())
	for _, r := range rows[1:] {
		i, ok := g.IndexOf(r[0])
		if !ok {
			continue
		}
		if _, ok := ids[r[1]]; !ok {
			ids[r[1]] = len(ids)
		}
		part[i] = ids[r[1]]
	}
	return part
}
