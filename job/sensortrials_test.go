package job

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// TestSensorTrialsProduceTheModel: the readings plan's forecast simulates
// under a sensor model carry each declared part and nothing beyond it — a
// gain within the tolerance, noise within its peak (in rms units of
// ν·μ/n), readings on the ADC's grid, exactly the declared number of
// sensors at 0 — on a diffusion that is positive everywhere.
func TestSensorTrialsProduceTheModel(t *testing.T) {
	const n, mass, nu = 200, 3.0, 0.005
	a := make([]float64, n)
	for i := range a {
		a[i] = (1 + float64(i%7)) / (4 * n)
	}
	rms := nu * mass / n
	cases := []struct {
		name  string
		model privacy.SensorModel
		check func(y []float64) string
	}{
		{"gain", privacy.SensorModel{Noise: nu, GainTolerance: 0.2, NoisePeak: 1}, func(y []float64) string {
			for i, v := range y {
				if r := v / (mass * a[i]); math.Abs(r-1) > 0.2+rms/(mass*a[i]) {
					return "a gain beyond the tolerance"
				}
			}
			return ""
		}},
		{"peak", privacy.SensorModel{Noise: nu, NoisePeak: 2}, func(y []float64) string {
			for i, v := range y {
				if math.Abs(v-mass*a[i]) > 2*rms*(1+1e-12) {
					return "noise beyond its peak"
				}
			}
			return ""
		}},
		{"adc+faults", privacy.SensorModel{Noise: nu, ADCQuantum: mass / 4096, FaultySensors: 3}, func(y []float64) string {
			zeros := 0
			for _, v := range y {
				if v == 0 {
					zeros++
				}
				if q := v / (mass / 4096); q != math.Round(q) {
					return "a reading off the ADC's grid"
				}
			}
			if zeros != 3 {
				return "not 3 sensors at 0"
			}
			return ""
		}},
	}
	for _, c := range cases {
		st := sensorTrials{Sensor: c.model, Mass: mass}
		for d := range 50 {
			y := append([]float64(nil), a...)
			st.produce(y, rand.New(rand.NewPCG(uint64(d), 1)))
			if bad := c.check(y); bad != "" {
				t.Fatalf("%s, draw %d: %s", c.name, d, bad)
			}
		}
	}
}
