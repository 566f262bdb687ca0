package main

import (
	"math"

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
type noiseFlags struct{ nu, rms, minMass float64 }

// at is ν on a graph of n nodes (0: no noise stated).
func (o noiseFlags) at(n int) float64 {
	if o.rms > 0 {
		return recovery.SensorNoiseFromRMS(o.rms, o.minMass, n)
	}
	return o.nu
}

// addSensorNoiseFlag adds --sensor-noise, --sensor-noise-rms and
// --min-source-mass (the answer's model stated as the sensors' Gaussian
// noise instead of --fit-tolerance).
func addSensorNoiseFlag(f *pflag.FlagSet, noise *noiseFlags) {
	f.Float64Var(&noise.nu, "sensor-noise", 0,
		"rms of each reading's Gaussian noise, as a fraction of the source's mean reading μ/n (0.005 = 0.5 %); the answer is then (ε, δ)-DP with δ printed and charged (docs/guarantee.md)")
	f.Float64Var(&noise.rms, "sensor-noise-rms", 0,
		"rms of each reading's Gaussian noise in reading units, with --min-source-mass (instead of --sensor-noise)")
	f.Float64Var(&noise.minMass, "min-source-mass", 0,
		"with --sensor-noise-rms: the smallest source mass (sum of its readings) the answer's guarantee covers; lighter sources are outside it")
}

// checkSensorNoise refuses a noise statement that is not finite and > 0,
// half of the absolute form, both forms, or one given with --fit-tolerance.
func checkSensorNoise(f *pflag.FlagSet, noise noiseFlags) error {
	rel, rms, mass := f.Changed("sensor-noise"), f.Changed("sensor-noise-rms"), f.Changed("min-source-mass")
	finite := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	switch {
	case !rel && !rms && !mass:
		return nil
	case rel && (rms || mass):
		return usageErrorf("give either --sensor-noise (relative to the mean reading) or --sensor-noise-rms with --min-source-mass (reading units), not both")
	case rms != mass:
		return usageErrorf("--sensor-noise-rms and --min-source-mass go together: the rms in reading units is relative to a source of at least that mass")
	case f.Changed("fit-tolerance"):
		return usageErrorf("give either a sensor noise or --fit-tolerance, not both: the tolerance is derived from the noise")
	case rel && !finite(noise.nu):
		return usageErrorf("--sensor-noise must be a finite number > 0, got %g", noise.nu)
	case rms && (!finite(noise.rms) || !finite(noise.minMass)):
		return usageErrorf("--sensor-noise-rms and --min-source-mass must be finite numbers > 0, got %g and %g", noise.rms, noise.minMass)
	}
	return nil
}
