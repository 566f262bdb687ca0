package answer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

func TestZZSearch2(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	ctx := context.Background()
	g, _ := laplacian.Karate()
	if os.Getenv("ZZG") == "pa" {
		g, _ = laplacian.PreferentialAttachment(60, 2, 11)
	}
	part, _ := community.Leiden(g, community.LeidenOptions{Seed: 1})
	m, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{SensorNoise: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	heat := heattest.PadeHeat(g, 1)
	cal1, _ := privacy.CalibrateAnswer(ctx, m.Geometry, 1, 3, 0)
	cal4, _ := privacy.CalibrateAnswer(ctx, m.Geometry, 4, 3, 0)
	n := g.N()
	found := 0
	for a := 0; a < n && found < 10; a++ {
		for b := a + 1; b < n && found < 10; b++ {
			for _, v := range []float64{0, 3} {
				f := sensorFault{name: fmt.Sprintf("two@%s,%s=%g", g.Key(a), g.Key(b), v), apply: func(y []float64, _ *rand.Rand) { y[a], y[b] = v, v }}
				cs := faultCentres(t, m, heat, f, MismatchNearest, 3, 0.005, 1)
				for i, cal := range []privacy.AnswerCalibration{cal1, cal4} {
					eps := []float64{1, 4}[i]
					beyond, _, worst := couplingCheck(g, m, cal, cs, eps, 1e-3)
					if beyond > 0 {
						found++
						t.Logf("ε=%g %s: worst %.3f", eps, f.name, worst)
					}
				}
			}
		}
	}
}
