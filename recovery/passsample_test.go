package recovery

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestPassCostCountsSecondActions (issue 79): EstimatePass prices the
// pass the certifier runs. A source whose first action proves it keeps no
// pair skips its second (keepsNothing), so the pass is (S + C + 2R)·K·
// (2|E| + n) steps with C the sources correlated — counted here by the
// pass itself (rowsCorrelated), the oracle — and R the refit sample. On
// graphs where most sources skip it, the model's C, from a sample of 32
// sources, is within 15 % of the pass's count of steps (it priced every
// source at two actions: 1.5× the steps on astro-ph's pass); with
// EdgeTerms (the plan's pass, which correlates every row) C is every
// source, as the pass's count is.
func TestPassCostCountsSecondActions(t *testing.T) {
	pa, err := laplacian.PreferentialAttachment(1500, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	pa2, err := laplacian.PreferentialAttachment(2500, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		g    *laplacian.Graph
		tau  float64
	}{{"pa 1500 m=2 τ=1", pa, 1}, {"pa 2500 m=1 τ=1", pa2, 1}} {
		for _, terms := range []bool{false, true} {
			opt := CertifierOptions{}
			if terms {
				opt.EdgeTerms = &EdgeTerms{}
			}
			pc, err := EstimatePass(c.g, c.tau, opt)
			if err != nil {
				t.Fatal(err)
			}
			cert, err := NewCertifier(context.Background(), c.g, c.tau, opt)
			if err != nil {
				t.Fatal(err)
			}
			n := c.g.N()
			if _, ok := cert.act.(*expm.Chebyshev); !ok || cert.Precise() {
				t.Fatalf("%s: the case needs the loose sparse action", c.name)
			}
			R := min(n, refitSample)
			nnz := float64(2*c.g.NumEdges() + n)
			steps := float64(n+cert.rowsCorrelated+2*R) * float64(pc.Degree) * nnz
			t.Logf("%s, terms %v: second action for %d of %d sources (modelled %d); steps %.3g, modelled %.3g",
				c.name, terms, cert.rowsCorrelated, n, pc.Correlated, steps, pc.Steps)
			if !terms && 2*cert.rowsCorrelated > n {
				t.Fatalf("%s: most sources ran the second action: not the case the test needs", c.name)
			}
			if pc.Degree != cert.act.(*expm.Chebyshev).Degree() || pc.Sources != n+R {
				t.Errorf("%s: K %d, %d sources; the pass's K is %d", c.name, pc.Degree, pc.Sources, cert.act.(*expm.Chebyshev).Degree())
			}
			if r := pc.Steps / steps; r < 0.85 || r > 1.15 {
				t.Errorf("%s, terms %v: modelled %.3g steps, the pass ran %.3g (%.2f×)", c.name, terms, pc.Steps, steps, r)
			}
			if terms && (cert.rowsCorrelated != n || pc.Correlated != n) {
				t.Errorf("%s with EdgeTerms: %d correlated, modelled %d; want every source (%d)", c.name, cert.rowsCorrelated, pc.Correlated, n)
			}
		}
	}
}
