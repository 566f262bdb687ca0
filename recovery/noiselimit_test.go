package recovery_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// Sensor noise too large for the graph and τ is refused with a fit
// tolerance that exists (not a negative one) and names the largest ν
// admitted; that ν is admitted indeed, and a tenth more is refused.
func TestSensorNoiseTooLargeNamesLargestAdmitted(t *testing.T) {
	g, _ := laplacian.Karate()
	ctx := context.Background()
	_, err := recovery.NewCertifier(ctx, g, 0.2, recovery.CertifierOptions{SensorNoise: 0.3})
	var mre *recovery.ModelRangeError
	if !errors.As(err, &mre) {
		t.Fatalf("ν = 0.3 on karate at τ = 0.2: %v, want a ModelRangeError", err)
	}
	if !(mre.Tol > 0 && mre.Tol <= 0.5) || strings.Contains(err.Error(), "tolerance -") {
		t.Errorf("refused at fit tolerance %g: %v", mre.Tol, err)
	}
	max := mre.MaxSensorNoise
	if !(max > 0 && max < 0.3) || !strings.Contains(err.Error(), "may be at most") {
		t.Fatalf("largest admitted ν %g: %v", max, err)
	}
	c, err := recovery.NewCertifier(ctx, g, 0.2, recovery.CertifierOptions{SensorNoise: max})
	if err != nil {
		t.Fatalf("the named largest ν %g is refused: %v", max, err)
	}
	if c.NoiseBound() < recovery.ModelNoiseBound(max, g.N()) || c.Tol() > 0.5 {
		t.Errorf("ν %g: model bound %g below %g (T %g)", max, c.NoiseBound(), recovery.ModelNoiseBound(max, g.N()), c.Tol())
	}
	if _, err := recovery.NewCertifier(ctx, g, 0.2, recovery.CertifierOptions{SensorNoise: 1.1 * max}); !errors.As(err, &mre) {
		t.Errorf("ν %g, a tenth above the largest named: %v, want refused", 1.1*max, err)
	}
}
