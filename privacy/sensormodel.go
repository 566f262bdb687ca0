package privacy

import (
	"fmt"
	"math"
	"strings"
)

// SensorModel is a deployment's sensor model, stated once by the operator
// from the sensors' data sheet when a scope's budget is created
// (budget --init) and kept with it (Budget.Sensor): every private answer
// on the scope is certified under it, so an analyst cannot ask the same
// readings again under another model. Noise is the readings' Gaussian
// noise, relative to the source's mean reading (Noise, ν) or in reading
// units (NoiseRMS) with the smallest source mass covered (MinSourceMass).
// ADCQuantum, GainTolerance, FaultySensors and NoisePeak describe what
// real sensors do beyond Gaussian noise (an ADC step in reading units, a
// relative gain error per sensor, sensors whose readings may be anything,
// the largest noise in rms units); the zero value of each says the
// sensors have none. DriftHops is the drift allowance d: how many hops
// the answer's centre may move when the readings leave the Gaussian
// model (what the other parts do to them), paid for by calibrating the
// per-hop scale as if α were ⌈α⌉·(1+2d) (answer.CalibrationAlpha;
// budget --init gives it DefaultDriftHops). That the centre moves at
// most d hops is measured by an oracle, not proven (docs/guarantee.md). The zero SensorModel is no model (a scope created
// before models, or without one): each answer states its own, as before.
type SensorModel struct {
	Noise         float64 `json:"noise,omitempty"`
	NoiseRMS      float64 `json:"noiseRms,omitempty"`
	MinSourceMass float64 `json:"minSourceMass,omitempty"`
	ADCQuantum    float64 `json:"adcQuantum,omitempty"`
	GainTolerance float64 `json:"gainTolerance,omitempty"`
	FaultySensors int     `json:"faultySensors,omitempty"`
	NoisePeak     float64 `json:"noisePeak,omitempty"`
	DriftHops     int     `json:"driftHops,omitempty"`
}

// DriftAny is the drift allowance that lets the answer's centre move
// anywhere: the answer is randomized response at ε, ε-DP between any two
// reading vectors, so no fault can break it (docs/derivations.md §5.1b).
const DriftAny = -1

// DefaultDriftHops is the drift allowance budget --init stores with a
// sensor model when none is given: DriftAny, the one that is proven. A
// hop count (at most MaxDriftHops) is measured only: on an LFR graph of
// 2 000 nodes one hop let the loss reach 5.1 at ε = 4 (docs/guarantee.md).
const DefaultDriftHops = DriftAny

// MaxDriftHops bounds the drift allowance: each hop divides the per-hop
// scale further (1+2d), and no oracle measured beyond one.
const MaxDriftHops = 3

// IsZero reports whether m is no model.
func (m SensorModel) IsZero() bool { return m == SensorModel{} }

// Validate checks a model (the zero model is valid): its noise stated in
// exactly one form (ν, or the rms with the smallest source mass), every
// part finite and ≥ 0, a gain tolerance below 1 and a noise peak, when
// given, of at least one rms.
func (m SensorModel) Validate() error {
	if m.IsZero() {
		return nil
	}
	bad := func(param string, v float64, reason string) error {
		return &ArgumentError{Func: "SensorModel", Param: param, Value: v, Reason: reason}
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"sensor noise", m.Noise}, {"sensor noise rms", m.NoiseRMS}, {"min source mass", m.MinSourceMass},
		{"adc quantum", m.ADCQuantum}, {"gain tolerance", m.GainTolerance}, {"noise peak", m.NoisePeak}, {"faulty sensors", float64(m.FaultySensors)}} {
		if !(p.v >= 0) || math.IsInf(p.v, 0) {
			return bad(p.name, p.v, "must be finite and ≥ 0")
		}
	}
	if m.DriftHops < DriftAny || m.DriftHops > MaxDriftHops {
		return bad("drift hops", float64(m.DriftHops), fmt.Sprintf("must be in 0..%d, or DriftAny (%d)", MaxDriftHops, DriftAny))
	}
	switch {
	case (m.Noise > 0) == (m.NoiseRMS > 0):
		return bad("sensor noise", m.Noise, "a sensor model states its noise once: a relative rms ν, or an rms in reading units with the smallest source mass")
	case (m.NoiseRMS > 0) != (m.MinSourceMass > 0):
		return bad("min source mass", m.MinSourceMass, "goes with the rms in reading units, and only with it")
	case m.GainTolerance >= 1:
		return bad("gain tolerance", m.GainTolerance, "must be below 1 (a relative error per sensor)")
	case m.NoisePeak != 0 && m.NoisePeak < 1:
		return bad("noise peak", m.NoisePeak, "is the largest noise in rms units: at least 1")
	}
	return nil
}

// GaussianOnly reports whether the model is Gaussian noise alone: the
// only model the certified recovery covers (the other parts are covered,
// on a scope, by the drift allowance: measured, not proven).
func (m SensorModel) GaussianOnly() bool {
	return m.ADCQuantum == 0 && m.GainTolerance == 0 && m.FaultySensors == 0 && m.NoisePeak == 0
}

// String is the model's parts that are not zero: "noise ν=0.005, faulty
// sensors=1".
func (m SensorModel) String() string {
	if m.IsZero() {
		return "no sensor model"
	}
	var parts []string
	add := func(name string, v float64) {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%s%g", name, v))
		}
	}
	add("noise ν=", m.Noise)
	add("noise rms=", m.NoiseRMS)
	add("min source mass=", m.MinSourceMass)
	add("ADC quantum=", m.ADCQuantum)
	add("gain tolerance=", m.GainTolerance)
	add("faulty sensors=", float64(m.FaultySensors))
	add("noise peak=", m.NoisePeak)
	if m.DriftHops == DriftAny {
		parts = append(parts, "drift hops=any")
	} else {
		add("drift hops=", float64(m.DriftHops))
	}
	return strings.Join(parts, ", ")
}
