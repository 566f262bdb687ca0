package job

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/privacy"
)

// sensorTrials simulates what a scope's sensor model does to the private
// answer's accuracy (plan's forecast of a scope with a model): Trials
// sources drawn uniformly (Seed), each source's readings
// y = gain·(Mass·exp(−τL)e_s) + noise, rounded to the ADC step, with the
// model's faulty sensors (drawn uniformly, whatever the source) stuck at
// 0, answered at the nearest fit as a scope with a model answers
// (answer.Model.NearestRight). Noise is Gaussian at the model's rms
// (ν·Mass/n, or its rms in reading units), Student-t(3) at that rms
// clipped to the noise peak when the model states one; each sensor's gain
// is drawn uniformly within the gain tolerance. Mass is the source's
// total mass (0: the model's smallest source mass, else 1: a unit
// source), which sets what the ADC step rounds away.
type sensorTrials struct {
	Sensor privacy.SensorModel
	Mass   float64
	Trials int
	Seed   uint64
}

// forecast makes f, the answer's row at cal (audited by a), the rate
// simulated under the model (nothing without one): plan's row and the
// private answer's own forecast (a dry run's included) alike.
func (st sensorTrials) forecast(ctx context.Context, f *forecast.Forecast, m *answer.Model, cal privacy.AnswerCalibration, a *answer.Audit) error {
	if st.Sensor.IsZero() {
		return nil
	}
	sources, right, err := st.simulate(ctx, m, cal)
	if err != nil {
		return err
	}
	f.SetUnderSensors(st.Sensor.String(), a.OwnCommunity(), sources, right)
	return nil
}

// simulate returns, per trial, its source and the chance that the answer
// calibrated by cal on m names the source's community.
func (st sensorTrials) simulate(ctx context.Context, m *answer.Model, cal privacy.AnswerCalibration) (sources []int, right []float64, err error) {
	n := m.Graph.N()
	act, err := expm.NewAction(m.Graph, m.Tau, expm.Options{Columns: st.Trials})
	if err != nil {
		return nil, nil, err
	}
	sources, right = make([]int, st.Trials), make([]float64, st.Trials)
	e, y := make([]float64, n), make([]float64, n)
	for t := range right {
		if t%64 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		rng := rand.New(rand.NewPCG(st.Seed, uint64(t)))
		s := rng.IntN(n)
		clear(e)
		e[s] = 1
		act.Apply(y, e, 1)
		st.produce(y, rng)
		sources[t] = s
		if right[t], err = m.NearestRight(cal, y, s); err != nil {
			return nil, nil, err
		}
	}
	return sources, right, nil
}

// produce turns a unit source's diffusion a into what the model's sensors
// report, in place (sensorTrials).
func (st sensorTrials) produce(a []float64, rng *rand.Rand) {
	n := len(a)
	s := st.Sensor
	mass := st.Mass
	if mass == 0 {
		mass = s.MinSourceMass // the lightest source the model covers
	}
	if mass == 0 {
		mass = 1
	}
	rms := s.NoiseRMS
	if rms == 0 {
		rms = s.Noise * mass / float64(n)
	}
	for i := range a {
		gain := 1 + s.GainTolerance*(2*rng.Float64()-1)
		a[i] = gain*mass*a[i] + rms*noiseDraw(rng, s.NoisePeak)
	}
	if q := s.ADCQuantum; q > 0 {
		for i := range a {
			a[i] = math.Round(a[i]/q) * q
		}
	}
	if s.FaultySensors > 0 {
		for _, i := range rng.Perm(n)[:min(s.FaultySensors, n)] {
			a[i] = 0
		}
	}
}

// noiseDraw is one unit-rms noise draw: Gaussian, or with a peak
// Student-t(3) scaled to unit variance and clipped at ±peak.
func noiseDraw(rng *rand.Rand, peak float64) float64 {
	z := rng.NormFloat64()
	if peak == 0 {
		return z
	}
	c := 0.0
	for range 3 {
		w := rng.NormFloat64()
		c += w * w
	}
	t := z / math.Sqrt(c/3) / math.Sqrt(3) // t(3) has variance 3
	return math.Max(-peak, math.Min(peak, t))
}
