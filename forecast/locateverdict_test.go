package forecast

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestVerdictRateIsLocates: a curve by source mass forecasts the rate at
// which locate's verdict calls a release an answer, against an
// independent oracle — releases drawn here, each judged as locate judges
// one (EstimateMass, the evidence test, AtMass at the mass's lower bound,
// Judge). On karate at ε = 2 with 10-unit sources the ranking is right
// far more often than locate answers (most releases' mass bounds fall
// below the mass the forecast resolves), so the ranking's rate — all a
// plan printed before — is no forecast of the verdict.
func TestVerdictRateIsLocates(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a hundred and fifty verdicts")
	}
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sens, err := sensitivity.Graph(g, 1, 1, sensitivity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const mass = 10.0
	e := Simulation{Graph: g, Partition: part, Tau: 1, Epsilon: 2, Delta: 1e-5, Sensitivity: &sens, Trials: 400, VerdictRoundTrials: 100, Seed: 5}
	curve, _, err := MassCurve(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	var pt MassPoint
	for _, p := range curve {
		if p.Mass == mass {
			pt = p
		}
	}
	if pt.VerdictTrials == 0 {
		t.Fatalf("the curve's %g-unit point forecasts no verdict: %+v", mass, pt)
	}
	unit, err := PerNode(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	sigma := unit.Sigma

	// The oracle: releases judged one by one, as locate judges.
	model, err := recovery.NewGraphModel(g, e.Tau, recovery.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const releases = 150
	rng := rand.New(rand.NewPCG(11, 12))
	je := e
	je.Trials = 100 // locate's default forecast trials
	answers := 0
	n := g.N()
	for r := range releases {
		f0 := make([]float64, n)
		f0[rng.IntN(n)] = mass
		y := make([]float64, n)
		model.Apply(y, f0)
		for i := range y {
			y[i] += sigma * rng.NormFloat64()
		}
		seed := uint64(100 + r)
		m := EstimateMass(model, y, sigma, seed)
		_, p := recovery.EvidenceTest{Seed: seed, Partition: part}.PValue(model.Problem(y, sigma))
		je.Seed = seed
		f, err := AtMass(ctx, je, m)
		if err != nil {
			t.Fatal(err)
		}
		if !Judge(f, m, p).Noise {
			answers++
		}
	}
	got := float64(answers) / releases
	// Binomial standard errors of both rates; 3.5 of their combined.
	se := math.Sqrt(got*(1-got)/releases + pt.VerdictRate*(1-pt.VerdictRate)/float64(pt.VerdictTrials))
	tol := 3.5 * math.Max(se, 0.02)
	t.Logf("%g-unit sources: ranked right %.3f, verdict rate forecast %.3f (%d trials), locate's %.3f (%d releases), tolerance %.3f",
		mass, pt.CommunityAccuracy, pt.VerdictRate, pt.VerdictTrials, got, releases, tol)
	if math.Abs(pt.VerdictRate-got) > tol {
		t.Errorf("verdict rate forecast %.3f, locate answers %.3f of %d releases (tolerance %.3f)", pt.VerdictRate, got, releases, tol)
	}
	// The ranking's rate is no forecast of the verdict here: the test
	// would fail on a plan that printed it alone.
	if math.Abs(pt.CommunityAccuracy-got) <= tol {
		t.Errorf("the ranking's rate %.3f is within %.3f of locate's %.3f: this case tells the two apart no more", pt.CommunityAccuracy, tol, got)
	}
}
