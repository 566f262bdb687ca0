package answer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestDefaultDriftTwoSaturatedSensors (issue 77, item 2): karate at τ = 1,
// a scope's default sensor model (Gaussian noise ν = 0.5 %, the default
// drift allowance) and two faulty sensors, nodes 6 and 30 saturated at
// full scale — a model that declares --faulty-sensors 2. The answer's
// centre for every source is computed by the nearest fit itself
// (Model.FitReadings), noiseless readings, and the published
// distributions at the two centres of every edge come from the
// calibration Run publishes with. Their exact loss must be ≤ ε at ε = 1
// and 4. Fails on 2bb6a90: one hop of drift (α = 3) let the two faults
// move a centre further — loss 1.18 at ε = 1, 5.57 at ε = 4.
func TestDefaultDriftTwoSaturatedSensors(t *testing.T) {
	ctx := context.Background()
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const tau, mass = 1.0, 3.0
	m, err := NewModel(ctx, g, tau, part, nil, recovery.CertifierOptions{SensorNoise: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	heat := heattest.PadeHeat(g, tau)
	centre := make([]int, g.N())
	for s := range centre {
		y := make([]float64, g.N())
		for i := range y {
			y[i] = mass * heat.At(i, s)
		}
		y[5], y[29] = mass, mass // nodes "6" and "30"
		node, _, err := m.FitReadings(y, MismatchNearest)
		if err != nil {
			t.Fatal(err)
		}
		centre[s] = m.node(node)
	}
	for i, eps := range []float64{1, 4} {
		l, err := privacy.CreateFileLedger(ctx, t.TempDir()+"/l.json", privacy.Budget{Epsilon: 100, Delta: 1e-5, AnswerDelta: 1e-6}, privacy.FileLedgerOptions{}, "s")
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, g.N())
		for j := range y {
			y[j] = mass * heat.At(j, 0)
		}
		res, err := Run(ctx, Request{Graph: g, Values: y, Tau: tau, Epsilon: eps, DriftHops: privacy.DefaultDriftHops, Model: m, Partition: part,
			OnMismatch: MismatchNearest, Ledger: l, Scope: "s", Epoch: fmt.Sprint("e", i), Noise: privacy.CryptoNoise()})
		if err != nil {
			t.Fatal(err)
		}
		worst, at := 0.0, ""
		g.ForEachEdge(func(s, u int, _ float64) {
			ps, pu := res.Calibration.ProbabilitiesAt(m.Geometry, centre[s]), res.Calibration.ProbabilitiesAt(m.Geometry, centre[u])
			for o := range ps {
				if l := math.Abs(math.Log(ps[o] / pu[o])); l > worst {
					worst, at = l, fmt.Sprintf("%s ~ %s", g.Key(s), g.Key(u))
				}
			}
		})
		if worst > eps*(1+1e-9) {
			t.Errorf("ε = %g, the default drift allowance (%s, α %g): sensors 6 and 30 saturated give loss %.4f on edge %s, above ε",
				eps, res.Calibration.Mechanism, res.Calibration.Alpha, worst, at)
		}
	}
}

// TestAnyPairLoss: AnyPairLoss is the brute-force largest log-ratio over
// every two nodes of the geometry and every output (karate, ε = 1):
// ε for randomized response (its scale on the 2⁻²⁰ grid), above it for the mechanism chosen at
// α = 1 (which CheckDrift then refuses under DriftAny, and lets through
// under a hop count).
func TestAnyPairLoss(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	m, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{SensorNoise: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	for _, capDist := range []int{1, 0} {
		cal, err := privacy.CalibrateAnswer(ctx, m.Geometry, 1, 1, capDist)
		if err != nil {
			t.Fatal(err)
		}
		brute := 0.0
		for v := range m.Geometry.N() {
			pv := cal.ProbabilitiesAt(m.Geometry, v)
			for w := range m.Geometry.N() {
				pw := cal.ProbabilitiesAt(m.Geometry, w)
				for o := range pv {
					brute = math.Max(brute, math.Log(pv[o]/pw[o]))
				}
			}
		}
		got, err := m.AnyPairLoss(ctx, cal)
		if err != nil || math.Abs(got-brute) > 1e-12 {
			t.Fatalf("cap %d: AnyPairLoss %v (%v), brute force %v", capDist, got, err, brute)
		}
		var de *driftError
		err = m.CheckDrift(ctx, cal, privacy.DriftAny)
		switch {
		case capDist == 1 && (got > 1 || got < 1-0x1p-19 || err != nil): // ε′ on the 2⁻²⁰ grid
			t.Errorf("randomized response: loss %v between two centres (want ε = 1 on the scale's grid), CheckDrift %v", got, err)
		case capDist == 0 && (got <= 1 || !errors.As(err, &de)):
			t.Errorf("%s at α = 1: loss %v between two centres, CheckDrift %v; want > ε and a driftError", cal.Mechanism, got, err)
		}
		if err := m.CheckDrift(ctx, cal, 1); err != nil {
			t.Errorf("cap %d: CheckDrift under a hop count: %v, want nil (measured, nothing to check)", capDist, err)
		}
	}
}

// TestAnyPairLossRemembered: every answer under DriftAny checks the loss
// between any two centres (CheckDrift), which reads every node's
// distribution; the model remembers it per calibration, and what it
// remembers is each calibration's own loss (karate: randomized response's
// ε, and the α = 1 mechanism's larger one).
func TestAnyPairLossRemembered(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	m, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{SensorNoise: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	for _, capDist := range []int{1, 0, 1, 0} {
		cal, err := privacy.CalibrateAnswer(ctx, m.Geometry, 1, 1, capDist)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.anyPairLoss(ctx, cal)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.AnyPairLoss(ctx, cal)
		if err != nil || got != want {
			t.Fatalf("cap %d: AnyPairLoss %v (%v), computed afresh %v", capDist, got, err, want)
		}
		if kept, ok := m.anyLosses[cal]; !ok || kept != want {
			t.Errorf("cap %d: the model keeps %v (%v), want %v", capDist, kept, ok, want)
		}
	}
	if len(m.anyLosses) != 2 {
		t.Errorf("the model keeps %d losses, want 2 (one per calibration)", len(m.anyLosses))
	}
}
