package cost

import (
	"fmt"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestPricePool: a plan's first line prices the per-node
// forecasts' trials without running any — each draw at
// PerNodeTrialSeconds (3.2 column actions of K·(2|E|+n) steps at the
// machine's step rate and 0.32 µs a node, read back from its account) and
// each score at scoreNodeSeconds a node; a graph whose action is dense
// is not priced.
func TestPricePool(t *testing.T) {
	g, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	c, ok := PricePool(forecast.Simulation{Graph: g, Tau: 1})
	if !ok {
		t.Fatal("a 6 400-node grid is not priced")
	}
	var actions, ns, nodeMicros, scoreNs float64
	var K int
	if _, err := fmt.Sscanf(c.How, "priced at %g column actions of K = %d at this machine's %g ns a step and %g µs a node, scores at %g ns a node",
		&actions, &K, &ns, &nodeMicros, &scoreNs); err != nil {
		t.Fatalf("%q: %v", c.How, err)
	}
	draw := actions*float64(K)*float64(2*g.NumEdges()+g.N())*ns*1e-9 + nodeMicros*1e-6*float64(g.N())
	// The step rate is told to three digits: up to 0.5 % off.
	if math.Abs(c.Draw-draw) > 5e-3*draw || c.Score != scoreNodeSeconds*float64(g.N()) || scoreNs != scoreNodeSeconds*1e9 || c.Setup != 0 || K < 2 {
		t.Errorf("%+v: draw %g by its account, score %g", c, draw, scoreNodeSeconds*float64(g.N()))
	}
	small, _, err := laplacian.Generate("complete:n=20")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := PricePool(forecast.Simulation{Graph: small, Tau: 1}); ok {
		t.Errorf("a dense action priced: %+v", c)
	}
}
