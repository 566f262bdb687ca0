package main

import (
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/recovery"
)

// addFitFlags adds the certified recovery's flags (locate and serve).
func addFitFlags(f *pflag.FlagSet, tol *float64, noise *noiseFlags, onMismatch, cache *string) {
	f.Float64Var(tol, "fit-tolerance", recovery.DefaultFitTolerance,
		"relative misfit allowed between the readings and one source's diffusion at τ (any mass, any constant background), in (0, 0.5]")
	addSensorNoiseFlag(f, noise)
	f.StringVar(onMismatch, "on-mismatch", answer.MismatchRefuse,
		"readings that are not one source's diffusion: refuse (nothing charged) or rr (randomized response, whose guarantee needs no model)")
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
