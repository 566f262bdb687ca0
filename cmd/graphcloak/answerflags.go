package main

import (
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/recovery"
)

// addFitFlags adds the certified recovery's flags (locate and serve).
func addFitFlags(f *pflag.FlagSet, tol *float64, onMismatch, cache *string) {
	f.Float64Var(tol, "fit-tolerance", recovery.DefaultFitTolerance,
		"relative misfit allowed between the readings and one source's diffusion at τ (any mass, any constant background), in (0, 0.5]")
	f.StringVar(onMismatch, "on-mismatch", graphcloak.MismatchRefuse,
		"readings that are not one source's diffusion: refuse (nothing charged) or rr (randomized response, whose guarantee needs no model)")
	f.StringVar(cache, "answer-cache", "",
		"reuse the answer model (the certified recovery's pass over every source and its audit) stored in this file while it verifies against the graph, τ, --fit-tolerance and this version; otherwise compute it and store it here (scheduled answers)")
}
