package main

import (
	"math"

	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/recovery"
)

// addFitFlags adds the certified recovery's flags (locate and serve).
func addFitFlags(f *pflag.FlagSet, tol, noise *float64, onMismatch, cache *string) {
	f.Float64Var(tol, "fit-tolerance", recovery.DefaultFitTolerance,
		"relative misfit allowed between the readings and one source's diffusion at τ (any mass, any constant background), in (0, 0.5]")
	addSensorNoiseFlag(f, noise)
	f.StringVar(onMismatch, "on-mismatch", answer.MismatchRefuse,
		"readings that are not one source's diffusion: refuse (nothing charged) or rr (randomized response, whose guarantee needs no model)")
	f.StringVar(cache, "answer-cache", "",
		"reuse the answer model (the certified recovery's pass over every source and its audit) stored in this file while it verifies against the graph, τ, --fit-tolerance and this version; otherwise compute it and store it here (scheduled answers)")
}

// addSensorNoiseFlag adds --sensor-noise (the answer's model stated as the
// sensors' noise bound instead of --fit-tolerance).
func addSensorNoiseFlag(f *pflag.FlagSet, noise *float64) {
	f.Float64Var(noise, "sensor-noise", 0,
		"the sensors' noise bound ν, public: rms noise (its mean removed) up to ν times the source's mean reading; readings within it are answered at every source, and the fit tolerance is derived from it (instead of --fit-tolerance; see docs/guarantee.md)")
}

// checkSensorNoise refuses --sensor-noise that is not a finite ν > 0 when
// given, or given together with --fit-tolerance.
func checkSensorNoise(f *pflag.FlagSet, noise float64) error {
	if !f.Changed("sensor-noise") {
		return nil
	}
	if f.Changed("fit-tolerance") {
		return usageErrorf("give either --sensor-noise or --fit-tolerance, not both: the tolerance is derived from the noise bound")
	}
	if !(noise > 0) || math.IsInf(noise, 0) {
		return usageErrorf("--sensor-noise must be a finite number > 0, got %g", noise)
	}
	return nil
}
