package laplacian

import (
	"errors"
	"math"
	"testing"
)

func TestPreferentialAttachmentShape(t *testing.T) {
	const n, m = 20000, 3
	g, err := PreferentialAttachment(n, m, 7)
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != n || g.NumEdges() != m*(m+1)/2+(n-m-1)*m {
		t.Fatalf("n = %d, m = %d", g.N(), g.NumEdges())
	}
	if !g.Connected() || !g.Unweighted() || g.DuplicatesMerged() != 0 {
		t.Fatalf("connected %v, unweighted %v, merged %d", g.Connected(), g.Unweighted(), g.DuplicatesMerged())
	}
	minDeg := math.Inf(1)
	for _, d := range g.Degrees() {
		minDeg = math.Min(minDeg, d)
	}
	// Every node has at least m edges; hubs far above the mean 2m appear
	// (BA's maximum degree grows like m√n ≈ 400 here; a graph of
	// uniform attachment would stay near m·ln n ≈ 30).
	if minDeg < m || g.MaxDegree() < 100 {
		t.Fatalf("min degree %v, max degree %v", minDeg, g.MaxDegree())
	}
	again, _ := PreferentialAttachment(n, m, 7)
	other, _ := PreferentialAttachment(n, m, 8)
	if again.Fingerprint() != g.Fingerprint() || other.Fingerprint() == g.Fingerprint() {
		t.Fatal("same seed must give the same graph and another seed another graph")
	}
}

// TestPreferentialAttachmentProbability checks degree-proportional choice
// exactly on a case worked by hand: m = 1, start edge (0,1); node 2 joins 0
// or 1, leaving degrees (2,1,1) up to symmetry; node 3 then joins node 2
// with probability 1/4.
func TestPreferentialAttachmentProbability(t *testing.T) {
	const runs = 4000
	hits := 0
	for s := uint64(0); s < runs; s++ {
		g, err := PreferentialAttachment(4, 1, s)
		if err != nil {
			t.Fatal(err)
		}
		if g.EdgeWeight(2, 3) != 0 {
			hits++
		}
	}
	p := float64(hits) / runs
	sd := math.Sqrt(0.25 * 0.75 / runs)
	if math.Abs(p-0.25) > 5*sd {
		t.Fatalf("P(3 ~ 2) = %.4f, want 0.25 ± %.4f", p, 5*sd)
	}
}

// TestRandomGeometricBruteForce compares the grid search with all pairs.
func TestRandomGeometricBruteForce(t *testing.T) {
	for _, tc := range []struct {
		n int
		r float64
	}{{600, 0.05}, {300, 0.3}, {50, 1.2}, {2, 1e-9}, {1000, 0.001}} {
		g, pts, err := RandomGeometric(tc.n, tc.r, 3)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for i := 0; i < tc.n; i++ {
			for j := i + 1; j < tc.n; j++ {
				dx, dy := pts[i][0]-pts[j][0], pts[i][1]-pts[j][1]
				near := dx*dx+dy*dy <= tc.r*tc.r
				if near {
					want++
				}
				if near != (g.EdgeWeight(i, j) != 0) {
					t.Fatalf("n=%d r=%v: pair (%d,%d) at distance %v: edge %v", tc.n, tc.r, i, j, math.Hypot(dx, dy), !near)
				}
			}
		}
		if g.NumEdges() != want {
			t.Fatalf("n=%d r=%v: %d edges, brute force %d", tc.n, tc.r, g.NumEdges(), want)
		}
		for _, p := range pts {
			if !(p[0] >= 0 && p[0] < 1 && p[1] >= 0 && p[1] < 1) {
				t.Fatalf("point %v outside the unit square", p)
			}
		}
	}
}

func TestRandomGraphErrors(t *testing.T) {
	var se *SizeError
	if _, err := PreferentialAttachment(3, 3, 1); !errors.As(err, &se) || se.Param != "n" {
		t.Errorf("pa n=3 m=3: %v", err)
	}
	if _, err := PreferentialAttachment(10, 0, 1); !errors.As(err, &se) || se.Param != "m" {
		t.Errorf("pa m=0: %v", err)
	}
	for _, r := range []float64{0, -1, math.NaN(), 1.5} {
		if _, _, err := RandomGeometric(10, r, 1); !errors.As(err, &se) || se.Param != "radius" {
			t.Errorf("rgg radius %v: %v", r, err)
		}
	}
	if _, _, err := RandomGeometric(1, 0.1, 1); !errors.As(err, &se) || se.Param != "n" {
		t.Errorf("rgg n=1: %v", err)
	}
}
