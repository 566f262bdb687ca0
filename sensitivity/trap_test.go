package sensitivity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
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

// candidateLower's bound is proven: at most the exact √q_e of the edge it
// names (dense Padé oracle), hence at most Δ2; and tight: within twice its
// error allowance of that edge's value. On a sparse random graph at τ = 3
// (Δ2 = 2.0·10⁻⁶) max q_e is below the column scheme's absolute error
// qErr, which proves nothing there, while this bound is within 1e-4
// relative of Δ2. Its sketch finds the maximiser of heldHeatGraph at τ = 1
// and 3, which the Jensen order does not.
func TestCandidateLowerAgainstOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	graphs := []struct {
		name string
		g    *laplacian.Graph
	}{
		{"held heat", heldHeatGraph(t, 300, 40, 4)},
		{"weighted hubs", hubGraph(t, rng, 1, 120, true)},
		{"random weights", randomGraph(t, rng, 150, 0.05, 1, true)},
		{"random", randomGraph(t, rand.New(rand.NewPCG(9, 10)), 120, 0.1, 1, false)},
	}
	for _, c := range graphs {
		g, n := c.g, c.g.N()
		for _, tau := range []float64{0.3, 1, 3, 20} {
			A := expmOracle(g, tau)
			want := oracleDelta(g, A)
			B := expm.LambdaMaxBound(g)
			K := chebDegree(tau*B/2, candidateTol)
			allow := math.Sqrt2 * (expm.ChebyshevTailBound(tau*B/2, K) + chebColumnErr(g, B, tau*B/2, K, maxRow(g)))
			t0, t1 := make([]float64, n*columnBlock), make([]float64, n*columnBlock)
			root, e := candidateLower(g, tau, t0, t1, cutoff{})
			for k := range t0 {
				if t0[k] != 0 || t1[k] != 0 {
					t.Fatalf("%s τ = %v: scratch blocks not left zero", c.name, tau)
				}
			}
			if e[0] < 0 {
				if root != 0 || want > 2*allow {
					t.Errorf("%s τ = %v: no edge (bound %g) where Δ2 = %g exceeds twice the allowance %g", c.name, tau, root, want, allow)
				}
				continue
			}
			if g.EdgeWeight(e[0], e[1]) == 0 {
				t.Fatalf("%s τ = %v: edge %v is not an edge", c.name, tau, e)
			}
			exact := math.Sqrt(columnDiffSq(A, e[0], e[1]))
			if root > exact || root < exact-2*allow {
				t.Errorf("%s τ = %v: bound %.12g, edge %v has √q_e %.12g (allowance %.3g)", c.name, tau, root, e, exact, allow)
			}
			if c.name == "held heat" && (tau == 1 || tau == 3) && root < want*(1-1e-6) {
				t.Errorf("%s τ = %v: bound %.12g below Δ2 %.12g: the maximiser was not a candidate", c.name, tau, root, want)
			}
			if c.name == "random" && tau == 3 {
				if p := newChebPlan(g, tau, Options{}.withDefaults().Tol); want*want > p.qErr || root < want*(1-1e-4) {
					t.Errorf("%s τ = 3: Δ2² = %.3g, qErr %.3g, bound %.12g against Δ2 %.12g", c.name, want*want, p.qErr, root, want)
				}
			}
		}
	}
}

func maxRow(g *laplacian.Graph) int {
	w := 0
	for v := range g.N() {
		cols, _ := g.Neighbors(v)
		w = max(w, len(cols))
	}
	return w
}
