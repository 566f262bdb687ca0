package forecast

import "context"

// AtMassMemo is AtMass kept in memo (nil: AtMass alone). The forecast is
// a function of its inputs — its trials' streams are seeded, their
// results do not depend on the worker count (TestSimulateDeterministic)
// and its rounds stop on those results only — so the forecast memo holds
// under everything it depends on (memoKey: the graph's fingerprint, the
// partition and names, τ, α, σ, the sources and their mass, the sensors
// that report, the estimator, the trials, the seed, versioned) is the one
// AtMass would compute; it is returned with Reused. One computed is kept.
// With a time budget (trials that depend on time) nothing is kept or read.
// also are more keys it is kept under, never read here: a caller's name
// for the forecast by what it knows before the simulation's inputs are
// built (an --estimate asks for it: Memo.Load).
func AtMassMemo(ctx context.Context, e Simulation, m MassEstimate, memo Memo, also ...string) (*Forecast, error) {
	if memo == nil || !(m.Low > 0) {
		return AtMass(ctx, e, m)
	}
	key := atMassKey(e, m)
	if key != "" {
		if f, ok := memo.Load(key); ok {
			f.Reused = true
			return &f, nil
		}
	}
	f, err := AtMass(ctx, e, m)
	if err == nil && f != nil && key != "" {
		// What the memo keeps, as a later run reads it: the trials'
		// verdict masses and rights (MassCurves' own) are not kept.
		f.Reused, f.verdictMasses, f.rights = false, nil, nil
		memo.Store(key, *f)
		for _, k := range also {
			if k != "" {
				memo.Store(k, *f)
			}
		}
	}
	return f, err
}

// AtMassHeld reports whether memo holds AtMass(e, m): what AtMassMemo
// would read instead of simulating.
func AtMassHeld(e Simulation, m MassEstimate, memo Memo) bool {
	if memo == nil || !(m.Low > 0) {
		return false
	}
	key := atMassKey(e, m)
	if key == "" {
		return false
	}
	_, ok := memo.Load(key)
	return ok
}

// atMassKey names AtMass(e, m) in a memo ("" when it cannot be kept): the
// simulation AtMass runs, named as a sweep's rows are (memoKey).
func atMassKey(e Simulation, m MassEstimate) string {
	if e.Pool != nil || e.Verdicts {
		return "" // a shared pool or verdict nulls: not this simple forecast
	}
	e.SourceMass = m.Low / float64(max(e.Sources, 1))
	fp := e.Graph.Fingerprint()
	return EpsilonSweep{Graph: e}.memoKey(&fp, "at mass", e.Epsilon)
}
