package forecast

import (
	"context"
	"strconv"
	"testing"

	"github.com/graphcloak/graphcloak/internal/cputime"
	"github.com/graphcloak/graphcloak/laplacian"
)

// BenchmarkMassCurves times plan's step "forecasts by source mass"
// (MassCurves: five ε's curves, their verdict curves' refinements and
// locate's step) on a planted graph of 4 000 nodes in 40 communities, in
// CPU seconds of this process an op (cpu-s/op: the machine may be shared)
// besides wall time (issue 79, item 1):
//
//	go test ./forecast -run '^$' -bench BenchmarkMassCurves -benchtime 3x
func BenchmarkMassCurves(b *testing.B) {
	g, part, err := laplacian.Generate("sbm:sizes=" + sizes(40, 100) + ",pin=0.08,pout=0.002,seed=9")
	if err != nil {
		b.Fatal(err)
	}
	var es []Simulation
	for _, sigma := range []float64{0.4, 0.2, 0.1, 0.05, 0.025} {
		es = append(es, Simulation{Graph: g, Partition: part, Tau: 1, Sigma: sigma, Trials: 100, VerdictRoundTrials: 100,
			Seed: 1, Verdicts: true})
	}
	cpu := cputime.Process()
	b.ResetTimer()
	for b.Loop() {
		if _, err := MassCurves(context.Background(), es, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Process()-cpu)/float64(b.N), "cpu-s/op")
}

// sizes is k blocks of n nodes in laplacian.Generate's sbm spec: "nxnx…".
func sizes(k, n int) string {
	s := ""
	for i := range k {
		if i > 0 {
			s += "x"
		}
		s += strconv.Itoa(n)
	}
	return s
}
