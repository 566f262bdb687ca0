package sensitivity

import (
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestKnownTermsRefineOnlyTheTop: given proven brackets of every edge's
// term (here the Padé oracle's q_e widened by w, as a certifier pass would
// give them), Auto starts from them and refines the edges near the top by
// Lanczos: the same Δ2 as the dense eigendecomposition, exact. Brackets
// too wide to leave few edges near the top, or missing an edge, are not
// used (Auto's own scheme runs).
func TestKnownTermsRefineOnlyTheTop(t *testing.T) {
	for _, c := range []struct {
		spec string
		tau  float64
	}{
		{"karate", 1},
		{"pa:n=400,m=3,seed=2", 1},
		{"sbm:sizes=80x80x80,pin=0.2,pout=0.01,seed=3", 0.5},
		{"rgg:n=300,radius=0.1,seed=4", 1},
	} {
		g, _, err := laplacian.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		dense, err := Graph(g, c.tau, 1, Options{Method: expm.Dense})
		if err != nil {
			t.Fatal(err)
		}
		E := heattest.PadeHeat(g, c.tau)
		term := func(i, j int) float64 {
			q := 0.0
			for k := range g.N() {
				d := E.At(k, i) - E.At(k, j)
				q += d * d
			}
			return q
		}
		for _, w := range []float64{1e-9, 1e-6, 10} {
			known := func(i, j int) (float64, float64, bool) {
				q := term(i, j)
				return math.Max(0, q-w), q + w, true
			}
			s, err := Graph(g, c.tau, 1, Options{Known: known})
			if err != nil {
				t.Fatal(err)
			}
			used := s.Method == "pass-brackets+lanczos"
			if want := w < 1e-3; used != want {
				t.Errorf("%s τ=%g w=%g: method %s", c.spec, c.tau, w, s.Method)
			}
			if !s.Exact || s.Delta2 < dense.Delta2-dense.Slack || s.Delta2-s.Slack > dense.Delta2 {
				t.Errorf("%s τ=%g w=%g: [%.15g, %.15g] (exact %v) misses the dense [%.15g, %.15g]", c.spec, c.tau, w,
					s.Delta2-s.Slack, s.Delta2, s.Exact, dense.Delta2-dense.Slack, dense.Delta2)
			}
		}
		missing := func(i, j int) (float64, float64, bool) {
			q := term(i, j)
			return q, q, i != 0
		}
		if s, err := Graph(g, c.tau, 1, Options{Known: missing}); err != nil || s.Method == "pass-brackets+lanczos" {
			t.Errorf("%s: brackets missing node 0's edges were used (%v, %v)", c.spec, s.Method, err)
		}
	}
}
