package privacy

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// ProbabilitiesEverywhere is ProbabilitiesAt at every node, to the bit:
// for the envelope mechanism by one spread per community (the distance
// transform of each community's weights), at small ε — searches reaching
// across the graph — and at large ε, on graphs with several components;
// for the other mechanisms from the distance table. AnswerPosteriors is
// AnswerPosterior at every answer, ProbabilityColumns ProbabilitiesAt at
// every node and answer, to the bit.
func TestProbabilitiesEverywhereIsProbabilitiesAt(t *testing.T) {
	ctx := context.Background()
	for _, spec := range []string{
		"sbm:sizes=20x20x20x20,pin=0.3,pout=0.02,seed=3",
		"pa:n=300,m=2,seed=5",
		"rgg:n=250,radius=0.09,seed=4",
		"karate",
	} {
		g, part, err := laplacian.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		if part == nil {
			part = make([]int, g.N())
			for s := range part {
				part[s] = s % 5
			}
		}
		for _, tc := range []struct {
			eps     float64
			capDist int
		}{{0.25, 0}, {1, 0}, {4, 0}, {16, 0}, {2, 3}, {1, 1}} {
			cg, err := NewCommunityGeometry(ctx, g, part)
			if err != nil {
				t.Fatal(err)
			}
			cal, err := CalibrateAnswer(ctx, cg, tc.eps, 1, tc.capDist)
			if err != nil {
				t.Fatal(err)
			}
			all, err := cal.ProbabilitiesEverywhere(ctx, cg, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != g.N() {
				t.Fatalf("%s ε=%g: %d rows for %d nodes", spec, tc.eps, len(all), g.N())
			}
			for s := range g.N() {
				want := cal.ProbabilitiesAt(cg, s)
				for o, p := range want {
					if math.Float64bits(all[s][o]) != math.Float64bits(p) {
						t.Fatalf("%s ε=%g cap %d (%s): P(%d | %d) = %v, ProbabilitiesAt %v", spec, tc.eps, tc.capDist, cal.Mechanism, o, s, all[s][o], p)
					}
				}
			}
			checkPosteriors(t, ctx, cal, cg)
			checkColumns(t, ctx, cal, cg)
		}
	}
}

// checkPosteriors: AnswerPosteriors is AnswerPosterior at every answer,
// to the bit.
func checkPosteriors(t *testing.T, ctx context.Context, cal AnswerCalibration, cg *CommunityGeometry) {
	t.Helper()
	post, err := cal.AnswerPosteriors(ctx, cg)
	if err != nil {
		t.Fatal(err)
	}
	for o := range cg.K() {
		for c, p := range cal.AnswerPosterior(cg, o) {
			if math.Float64bits(post[o][c]) != math.Float64bits(p) {
				t.Fatalf("%s: P(%d | answer %d) = %v, AnswerPosterior %v", cal.Mechanism, c, o, post[o][c], p)
			}
		}
	}
}

// checkColumns: ProbabilityColumns is ProbabilitiesAt at every node and
// answer, to the bit, each answer once.
func checkColumns(t *testing.T, ctx context.Context, cal AnswerCalibration, cg *CommunityGeometry) {
	t.Helper()
	got := make([][]float64, cg.K())
	ok, err := cal.ProbabilityColumns(ctx, cg, 2, func(_, o int, col []float64) {
		if got[o] != nil {
			t.Errorf("answer %d given twice", o)
		}
		got[o] = slices.Clone(col)
	})
	if err != nil || !ok {
		t.Fatalf("ProbabilityColumns: ok %v, %v", ok, err)
	}
	for s := range cg.N() {
		for o, p := range cal.ProbabilitiesAt(cg, s) {
			if math.Float64bits(got[o][s]) != math.Float64bits(p) {
				t.Fatalf("%s: column %d at node %d = %v, ProbabilitiesAt %v", cal.Mechanism, o, s, got[o][s], p)
			}
		}
	}
}
