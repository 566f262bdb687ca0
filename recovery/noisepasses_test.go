package recovery

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestSensorNoiseRunsOnePassAtItsTolerance: with a stated sensor noise the
// certifier runs the norms' pass at the default T and then one pass at the
// noise's T — the pass AuditPasses says and EstimatePass prices — not a
// second pass at a T raised a hair because the first one's norms, computed
// with a looser action, fell short of the bound (issue 79: the answer's
// audit ran "pass 2" and then "pass 3" at the same printed T, twice what
// was said). Counted through CertifierOptions.Started; the model must
// still admit the noise.
func TestSensorNoiseRunsOnePassAtItsTolerance(t *testing.T) {
	pa2, err := laplacian.PreferentialAttachment(2000, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range append(noiseCases(t), noiseCase{"pa2000 ν=0.05", pa2, 0.05}) {
		t.Run(tc.name, func(t *testing.T) {
			var norms, full []PassCost
			opt := CertifierOptions{SensorNoise: tc.noise, Started: func(c PassCost) {
				if c.NormsOnly {
					norms = append(norms, c)
				} else {
					full = append(full, c)
				}
			}}
			c, err := NewCertifier(context.Background(), tc.g, 1, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(norms) != 1 || len(full) != 1 {
				t.Errorf("passes: %d of the norms, %d full (T = %v); want 1 and 1", len(norms), len(full), full)
			}
			if nu := ModelNoiseBound(tc.noise, tc.g.N()); c.NoiseBound() < nu {
				t.Errorf("the model admits %g < ν = %g", c.NoiseBound(), nu)
			}
		})
	}
}

// TestWeakestSignalOfTheStoredCertificate: the weakest signal taken from a
// certificate at the default T is the one the pass of the norms computes,
// bit for bit, so a sensor-noise certifier given it (WeakestSignal)
// certifies what one that ran that pass certifies (the same T, norms and
// classes), without the pass: only the pass at T is started, and
// EstimatePass prices that pass alone.
func TestWeakestSignalOfTheStoredCertificate(t *testing.T) {
	g, err := laplacian.PreferentialAttachment(600, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	def, err := NewCertifier(ctx, g, 1, CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := def.Classes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lo, err := WeakestSignalOf(g, 1, 0, def.State(sc))
	if err != nil {
		t.Fatal(err)
	}
	ran, err := weakestSignal(ctx, g, 1, CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lo != ran {
		t.Fatalf("weakest signal of the certificate %v, of the pass of the norms %v", lo, ran)
	}
	want, err := NewCertifier(ctx, g, 1, CertifierOptions{SensorNoise: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	var started []PassCost
	got, err := NewCertifier(ctx, g, 1, CertifierOptions{SensorNoise: 0.02, WeakestSignal: lo,
		Started: func(c PassCost) { started = append(started, c) }})
	if err != nil {
		t.Fatal(err)
	}
	sameCertificate(t, "given the weakest signal", got, want)
	if len(started) != 1 || started[0].NormsOnly {
		t.Errorf("passes started: %+v; want the pass at T alone", started)
	}
	full, _ := EstimatePass(g, 1, CertifierOptions{SensorNoise: 0.02})
	given, _ := EstimatePass(g, 1, CertifierOptions{SensorNoise: 0.02, WeakestSignal: lo})
	if given.Sources != started[0].Sources || !(given.Steps < full.Steps) {
		t.Errorf("estimated %d sources (%g steps) given the signal, %d (%g) without; the pass at T runs %d",
			given.Sources, given.Steps, full.Sources, full.Steps, started[0].Sources)
	}
	if _, err := WeakestSignalOf(g, 1, 0.05, def.State(sc)); err == nil {
		t.Error("a certificate at another T gave a weakest signal")
	}
}
