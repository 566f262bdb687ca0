package sensitivity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// heatTrap is the diagonal of P², P = D⁻¹W the jump chain of the heat walk,
// here from a dense product on a weighted random graph.
func TestHeatTrapIsTwoJumpReturn(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := randomGraph(t, rng, 40, 0.15, 1, true)
	n := g.N()
	P := mat.NewDense(n, n, nil)
	g.ForEachEdge(func(i, j int, w float64) {
		P.Set(i, j, w/g.Degree(i))
		P.Set(j, i, w/g.Degree(j))
	})
	var P2 mat.Dense
	P2.Mul(P, P)
	s := heatTrap(g)
	for v := range n {
		if want := P2.At(v, v); math.Abs(s[v]-want) > 1e-14*want {
			t.Errorf("node %d: heatTrap %.17g, (P²)_vv %.17g", v, s[v], want)
		}
	}
}

// heldHeatGraph is a random core (mean degree about 12) with decoy pairs x–y
// of degree 3 (each end also joined to two core nodes: the smallest degree
// sums, which the Jensen order picks) and a wheel-less hub a whose spokes
// form a cycle and each reach one core node: there the heat is held.
func heldHeatGraph(t testing.TB, core, decoys, spokes int) *laplacian.Graph {
	rng := rand.New(rand.NewPCG(1, 2))
	var e []laplacian.Edge
	add := func(u, v int) { e = append(e, laplacian.Edge{U: int32(u), V: int32(v), Weight: 1}) }
	for i := 0; i < core; i++ {
		for j := i + 1; j < core; j++ {
			if rng.Float64() < 12.0/float64(core) || j == i+1 {
				add(i, j)
			}
		}
	}
	n := core
	for range decoys {
		x, y := n, n+1
		n += 2
		add(x, y)
		for range 2 {
			add(x, rng.IntN(core))
			add(y, rng.IntN(core))
		}
	}
	a := n
	n++
	for k := range spokes {
		add(a, n+k)
		add(n+k, n+(k+1)%spokes)
		add(n+k, rng.IntN(core))
	}
	return mustGraph(t, n+spokes, e)
}

// On heldHeatGraph at τ = 1 and 3 the maximiser (a spoke's edge into the
// core) is 7th by trapScore and below the 900th by the Jensen order, so the
// column scheme's pilot proves max q_e (dense Padé oracle) only through its
// trapScore half; with the Jensen edges alone it proves less.
func TestPilotSchedulesHeldHeat(t *testing.T) {
	g := heldHeatGraph(t, 300, 40, 4)
	for _, tau := range []float64{1, 3} {
		want := oracleDelta(g, expmOracle(g, tau))
		r := newSparseRefiner(g, tau, 1, Options{}.withDefaults())
		r.prepare()
		r.pilotSchedule()
		r.refine(pilotColumnBlocks)
		if r.blocks > pilotColumnBlocks {
			t.Fatalf("τ = %v: %d blocks in the pilot", tau, r.blocks)
		}
		lo := math.Sqrt(r.bestLo)
		if lo > want*(1+1e-9) {
			t.Errorf("τ = %v: pilot lower bound %.12g above the oracle's %.12g", tau, lo, want)
		}
		if lo < want*(1-1e-6) {
			t.Errorf("τ = %v: pilot lower bound %.12g, max √q_e %.12g: the maximiser was not scheduled", tau, lo, want)
		}
	}
}
