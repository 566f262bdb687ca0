package main

import (
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// addFitFlags adds the certified recovery's flags (locate and serve).
func addFitFlags(f *pflag.FlagSet, tol *float64, model *modelFlags, onMismatch, cache *string) {
	f.Float64Var(tol, "fit-tolerance", recovery.DefaultFitTolerance,
		"relative misfit allowed between the readings and one source's diffusion at τ (any mass, any constant background), in (0, 0.5]")
	addSensorNoiseFlag(f, &model.noise)
	addModelPartFlags(f, &model.parts)
	f.StringVar(onMismatch, "on-mismatch", answer.MismatchRefuse,
		"readings that are not one source's diffusion: refuse (charged like an answer), rr (randomized response, whose guarantee needs no model) or nearest (every reading vector answered by the same mechanism at its nearest fit, a faulty sensor read as its neighbours' mean: no decision published; with --alpha 3 it kept every karate edge within ε under stuck, saturated, ADC, gain and t(3) faults, docs/guarantee.md)")
	f.StringVar(cache, "answer-cache", "",
		"reuse the answer model (the certified recovery's pass over every source and its audit) stored in this file while it verifies against the graph, τ, --fit-tolerance and this version; otherwise compute it and store it here (scheduled answers)")
}

// noiseFlags are the sensors' Gaussian noise as the operator states it:
// relative (--sensor-noise ν) or in reading units with the smallest source
// mass answered for (--sensor-noise-rms s --min-source-mass m, ν = s·n/m).
type noiseFlags = recovery.NoiseStatement

// addSensorNoiseFlag adds --sensor-noise, --sensor-noise-rms and
// --min-source-mass (the answer's model stated as the sensors' Gaussian
// noise instead of --fit-tolerance).
func addSensorNoiseFlag(f *pflag.FlagSet, noise *noiseFlags) {
	f.Float64Var(&noise.Nu, "sensor-noise", 0,
		"rms of each reading's Gaussian noise, as a fraction of the source's mean reading μ/n (0.005 = 0.5 %); the answer is then (ε, δ)-DP with δ printed and charged (docs/guarantee.md)")
	f.Float64Var(&noise.RMS, "sensor-noise-rms", 0,
		"rms of each reading's Gaussian noise in reading units, with --min-source-mass (instead of --sensor-noise)")
	f.Float64Var(&noise.MinSourceMass, "min-source-mass", 0,
		"with --sensor-noise-rms: the smallest source mass (sum of its readings) the answer's guarantee covers; lighter sources are outside it")
}

// checkSensorNoise refuses a noise statement that is not finite and > 0,
// half of the absolute form, both forms, or one given with --fit-tolerance
// (recovery.NoiseStatement.Check).
func checkSensorNoise(f *pflag.FlagSet, noise noiseFlags) error {
	return noise.Check(recovery.NoiseGiven{Nu: f.Changed("sensor-noise"), RMS: f.Changed("sensor-noise-rms"),
		MinSourceMass: f.Changed("min-source-mass"), FitTolerance: f.Changed("fit-tolerance")})
}

// modelFlags are an answer's sensor-model flags: its noise and the
// model's other parts, and (check) what the command line stated of them.
type modelFlags struct {
	noise noiseFlags
	parts privacy.SensorModel // ADCQuantum, GainTolerance, FaultySensors, NoisePeak
	// stated is the model the flags state (nil: none of them given);
	// fitTolerance and onMismatch whether --fit-tolerance and
	// --on-mismatch were given.
	stated                   *privacy.SensorModel
	fitTolerance, onMismatch bool
}

// sensorModelFlags are the flags of a sensor model besides its noise.
var sensorModelFlags = []string{"adc-quantum", "gain-tolerance", "faulty-sensors", "noise-peak"}

// addModelPartFlags adds the sensor model's parts besides its noise
// (privacy.SensorModel): budget --init keeps them with the scope, and an
// answer that states them must state the scope's.
func addModelPartFlags(f *pflag.FlagSet, m *privacy.SensorModel) {
	f.Float64Var(&m.ADCQuantum, "adc-quantum", 0, "sensor model: the ADC step in reading units (readings rounded to multiples of it); 0: none")
	f.Float64Var(&m.GainTolerance, "gain-tolerance", 0, "sensor model: the largest relative gain error of a sensor (0.01 for 1 %); 0: none")
	f.IntVar(&m.FaultySensors, "faulty-sensors", 0, "sensor model: how many sensors may read anything (stuck, dead, saturated); 0: none")
	f.Float64Var(&m.NoisePeak, "noise-peak", 0, "sensor model: the largest |noise| of a reading in rms units (a bound on non-Gaussian tails); 0: Gaussian")
}

// check checks the noise statement (checkSensorNoise) and records what
// the command line stated of the model.
func (m *modelFlags) check(f *pflag.FlagSet) error {
	if err := checkSensorNoise(f, m.noise); err != nil {
		return err
	}
	m.fitTolerance, m.onMismatch = f.Changed("fit-tolerance"), f.Changed("on-mismatch")
	m.stated = nil
	for _, name := range append([]string{"sensor-noise", "sensor-noise-rms", "min-source-mass"}, sensorModelFlags...) {
		if f.Changed(name) {
			s := m.parts
			s.Noise, s.NoiseRMS, s.MinSourceMass = m.noise.Nu, m.noise.RMS, m.noise.MinSourceMass
			m.stated = &s
		}
	}
	if m.stated != nil {
		if err := m.stated.Validate(); err != nil {
			return errkind.Usagef("the stated sensor model: %s", err.Error())
		}
	}
	return nil
}
