package forecast

import (
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// massNullRow is the sweep Memo's mode of the mass bound's null quantile.
const massNullRow = "mass null quantile"

// keptQuantile keeps the mass bound's null quantile (massBound.q:
// MassNullDraws actions of the model's transpose, seconds on 2·10⁴ nodes)
// in a sweep's Memo, sealed as its forecasts are. The quantile depends on
// the graph, τ, the recovery model and the seed, never on ε: plan with
// one ε more reads it instead of drawing it again. Its key is the
// sweep's memoKey at ε = 0 (every parameter of the simulation but ε), so
// a change in any of them draws it again.
type keptQuantile struct {
	memo Memo
	key  string
}

// keptQuantile is p's kept quantile on the graph of fingerprint fp; nil
// without a Memo, or where each block of trials has its own model
// (missing sensors: one quantile a model).
func (p EpsilonSweep) keptQuantile(fp *laplacian.Fingerprint) *keptQuantile {
	e := p.Graph
	if p.Memo == nil || e.Missing != 0 || e.Reported != nil {
		return nil
	}
	key := p.memoKey(fp, massNullRow, 0)
	if key == "" {
		return nil
	}
	return &keptQuantile{memo: p.Memo, key: key}
}

// HeldMassNull reports whether the memo keeps the mass bound's null
// quantile of the sweep's simulation at τ: a run reads it instead of its
// MassNullDraws (an estimate prices the rest).
func (p EpsilonSweep) HeldMassNull() bool {
	fp := p.Graph.Graph.Fingerprint()
	k := p.keptQuantile(&fp)
	if k == nil {
		return false
	}
	_, ok := k.load()
	return ok
}

// load returns the kept quantile, if any.
func (k *keptQuantile) load() (float64, bool) {
	f, ok := k.memo.Load(k.key)
	if !ok || !(f.MassNullQuantile > 0) {
		return 0, false
	}
	return f.MassNullQuantile, true
}

// store keeps q.
func (k *keptQuantile) store(q float64) {
	k.memo.Store(k.key, Forecast{Mode: massNullRow, MassNullQuantile: q})
}

// keeping makes v read and keep its first model's null quantile in kept
// (nil: v draws every model's); the runs that keep it have one model.
func (v *verdictTests) keeping(kept *keptQuantile) *verdictTests {
	v.kept = kept
	return v
}

// newMass is the mass bound of md, its null quantile read from the kept
// one for the run's first model (drawn and kept when none is).
func (v *verdictTests) newMass(md *recovery.Model) *massBound {
	if v.kept == nil || len(v.mass) > 0 {
		return newMassBound(md, v.seed, v.nullProgress())
	}
	if q, ok := v.kept.load(); ok {
		return massBoundWith(md, q)
	}
	b := newMassBound(md, v.seed, v.nullProgress())
	if b.q > 0 {
		v.kept.store(b.q)
	}
	return b
}
