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
