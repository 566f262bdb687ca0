package recovery

import (
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestEvidenceTestLevel: on pure noise the p-value is (super-)uniform, so
// at most about NoiseLevel of noise-only data sets claim a source; with a
// strong source every data set does.
func TestEvidenceTestLevel(t *testing.T) {
	g, planted, err := laplacian.Generate("sbm:sizes=60x60,pin=0.2,pout=0.01,seed=4")
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewGraphModel(g, 1, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range [][]int{nil, planted} {
		testEvidenceLevel(t, g, md, part)
	}
}

func testEvidenceLevel(t *testing.T, g *laplacian.Graph, md *Model, part []int) {
	rng := rand.New(rand.NewPCG(7, 8))
	const sets, sigma = 100, 0.05
	claimed := 0
	for i := range sets {
		y := make([]float64, g.N())
		for j := range y {
			y[j] = sigma * rng.NormFloat64()
		}
		_, p := EvidenceTest{Draws: 99, Seed: uint64(i), Partition: part}.PValue(md.Problem(y, sigma))
		if p <= NoiseLevel {
			claimed++
		}
	}
	// Binomial(100, 0.05): P(X ≥ 13) < 0.002.
	if claimed >= 13 {
		t.Fatalf("partition %v: %d of %d pure-noise data sets claimed a source at level %g", part != nil, claimed, sets, NoiseLevel)
	}
	// A unit source at τ = 1 against σ = 0.005: its column has norm ≫ σ.
	for s := 0; s < g.N(); s += 17 {
		f := make([]float64, g.N())
		f[s] = 1
		y := make([]float64, g.N())
		md.Apply(y, f)
		for j := range y {
			y[j] += 0.005 * rng.NormFloat64()
		}
		if _, p := (EvidenceTest{Draws: 99, Partition: part}).PValue(md.Problem(y, 0.005)); p > 0.01 {
			t.Fatalf("source at %d with σ = 0.005: p = %g, want the smallest p-value 0.01", s, p)
		}
	}
}

// TestEvidenceTestProgress: Progress is told each null draw, in order, of
// Draws, and watching changes nothing (the same p-value, statistic and
// null).
func TestEvidenceTestProgress(t *testing.T) {
	g, planted, err := laplacian.Generate("sbm:sizes=30x30,pin=0.3,pout=0.02,seed=5")
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewGraphModel(g, 1, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, g.N())
	y[3] = 1
	prob := md.Problem(y, 0.05)
	plain := EvidenceTest{Draws: 49, Seed: 3, Partition: planted}
	var seen []int
	watched := plain
	watched.Progress = func(done, total int) {
		if total != 49 {
			t.Errorf("total %d, want 49", total)
		}
		seen = append(seen, done)
	}
	s1, p1 := plain.PValue(prob)
	s2, p2 := watched.PValue(prob)
	if s1 != s2 || p1 != p2 {
		t.Errorf("watched: statistic %g p %g, unwatched %g %g", s2, p2, s1, p1)
	}
	if len(seen) != 49 || seen[0] != 1 || seen[48] != 49 {
		t.Errorf("progress %v, want 1 … 49", seen)
	}
}
