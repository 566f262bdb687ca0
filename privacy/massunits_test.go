package privacy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMassUnitsIsRound: massUnits(d) is uint64(math.Round(d·2^massBits))
// to the bit on [0, 1] — ties, the float just below ½ (where x + ½
// rounds up to 1), every integer's neighbours, random terms — and 0 for
// −0 and last-bit negatives, as the sweep's fixed point had it.
func TestMassUnitsIsRound(t *testing.T) {
	const scale = 1 << massBits
	xs := []float64{0, math.Copysign(0, -1), -1e-300, 0.49999999999999994, 0.5, 1.5, 2.5, 1, scale}
	for k := 0; k <= 50; k++ {
		p := math.Ldexp(1, k)
		xs = append(xs, p, p-0.5, p+0.5, math.Nextafter(p-0.5, 0), math.Nextafter(p-0.5, p), math.Nextafter(p+0.5, p), math.Nextafter(p+0.5, 2*p))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		xs = append(xs, rng.Float64()*math.Ldexp(1, rng.IntN(51)))
	}
	for _, x := range xs {
		d := x / scale
		if x > scale {
			continue
		}
		want := uint64(math.Round(d * scale))
		if d*scale < 0 {
			want = 0
		}
		if got := massUnits(d); got != want {
			t.Fatalf("massUnits(%v) = %d, math.Round gives %d", d, got, want)
		}
	}
}
