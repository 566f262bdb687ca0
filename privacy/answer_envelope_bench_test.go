package privacy

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// benchGeometry is a planted partition of 10⁴ nodes in 100 blocks (about
// 10 neighbours inside, 6 outside): every community's envelope reaches
// most of the graph at ε = 2, as on the LFR graphs of the utility table.
func benchGeometry(b *testing.B) *CommunityGeometry {
	b.Helper()
	sizes := "100"
	for range 99 {
		sizes += "x100"
	}
	g, part, err := laplacian.Generate("sbm:sizes=" + sizes + ",pin=0.1,pout=0.0006,seed=1")
	if err != nil {
		b.Fatal(err)
	}
	cg, err := NewCommunityGeometry(context.Background(), g, part)
	if err != nil {
		b.Fatal(err)
	}
	return cg
}

// BenchmarkEnvelopeSweep times one sweep of every community's envelope
// (the unit of the calibration's cost) on one worker.
func BenchmarkEnvelopeSweep(b *testing.B) {
	cg := benchGeometry(b)
	env := cg.startEnvelope(2)
	n := cg.N()
	mass, own := make([]float64, n), make([]float64, n)
	b.ResetTimer()
	for range b.N {
		if err := env.total(context.Background(), 1, mass, own); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnvelopeCalibrate times a whole calibration at ε = 2.
func BenchmarkEnvelopeCalibrate(b *testing.B) {
	cg := benchGeometry(b)
	b.ResetTimer()
	for range b.N {
		if _, err := cg.calibrateEnvelope(context.Background(), 2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCalibrateAnswerEpsilons times plan's answer calibrations: the
// whole CalibrateAnswer (cap chosen) at plan's five ε, each on a fresh
// geometry as each plan run has (-cpuprofile for where).
func BenchmarkCalibrateAnswerEpsilons(b *testing.B) {
	cg := benchGeometry(b)
	b.ResetTimer()
	for range b.N {
		for _, eps := range []float64{0.5, 1, 2, 4, 8} {
			if _, err := CalibrateAnswer(context.Background(), cg, eps, 1, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
}
