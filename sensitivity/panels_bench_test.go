package sensitivity

import (
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// BenchmarkPanelStep is the panel method's probe on pa:n=3000,m=3: four
// panel steps (kernel, projection, accumulation), the fastest timed.
func BenchmarkPanelStep(b *testing.B) {
	g, _, err := laplacian.Generate("pa:n=3000,m=3,seed=1")
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		panelStepSeconds(g, true)
	}
}

// BenchmarkPanelCholesky is the count certificate's Cholesky at 700 rows,
// the probe the panel and slow-modes models scale by (n/700)³.
func BenchmarkPanelCholesky(b *testing.B) {
	for b.Loop() {
		choleskySeconds(700)
	}
}

// BenchmarkSlowModes is the slow-modes method on pa:n=3000,m=3 at τ = 100
// (about 80 modes): the filtered subspace iteration, the count
// certificate and the brackets.
func BenchmarkSlowModes(b *testing.B) {
	g, _, err := laplacian.Generate("pa:n=3000,m=3,seed=1")
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if _, ok := slowModesGraphSensitivity(g, 100, 1, Result{}, slowModesAutoBlock, func() bool { return false }); !ok {
			b.Fatal("no certificate")
		}
	}
}
