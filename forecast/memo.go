package forecast

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// Memo keeps a sweep's forecasts across runs: a plan run again on the same
// graph with the same parameters reads each (mode, ε) it computed before
// instead of simulating it again. Load reports whether key is held; Store
// keeps a forecast (a failure only costs the next run the simulation).
type Memo interface {
	Load(key string) (Forecast, bool)
	Store(key string, f Forecast)
}

// memoVersion changes whenever a forecast's meaning or the simulation
// that makes it changes, so forecasts kept by an older build are not read.
const memoVersion = 8 // 5: missing sensors; 6: per-node rows carry locate's verdict rate; 7: read off the verdict curve; 8: off locate's seeded step

// memoKey names the forecast of mode at ε by everything it depends on:
// the graph (its fingerprint), the partition and names, τ, α, δ, the
// mechanism, σ or Δ2, the sources and their mass, the missing sensors,
// the estimator, the trials and the seed — so a key names one forecast. A sweep whose trials
// a time budget may cut (their number then depends on time) has no key:
// "" (never kept).
func (p EpsilonSweep) memoKey(fp *laplacian.Fingerprint, mode string, eps float64) string {
	e := p.Graph
	if fp == nil || e.TimeBudget > 0 {
		return ""
	}
	part := e.Partition
	if p.Geometry != nil {
		part = p.Geometry.Partition()
	}
	var delta2 float64
	var exact bool
	if e.Sensitivity != nil {
		delta2, exact = e.Sensitivity.Delta2, e.Sensitivity.Exact
	}
	k := struct {
		Version            int
		Mode               string
		Epsilon            uint64
		Graph              laplacian.Fingerprint
		Partition          []int
		Names              []string
		Tau, Alpha         uint64
		Delta              uint64
		Mechanism          privacy.Mechanism
		Sigma              uint64
		Delta2             uint64
		Exact              bool
		Sources            int
		SourceMass         uint64
		Estimator          string
		Trials             int
		VerdictRoundTrials int
		Seed               uint64
		HasGeometry        bool
		Missing            uint64
		Reported           []int
	}{memoVersion, mode, math.Float64bits(eps), *fp, part, e.Names,
		math.Float64bits(e.Tau), math.Float64bits(e.Alpha), math.Float64bits(e.Delta), e.Mechanism,
		math.Float64bits(e.Sigma), math.Float64bits(delta2), exact, e.Sources, math.Float64bits(e.SourceMass),
		e.Estimator, e.Trials, e.VerdictRoundTrials, e.Seed, p.Geometry != nil, math.Float64bits(e.Missing), e.Reported}
	b, err := json.Marshal(k)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// memoized wraps fc (a mode's forecast at ε) with p.Memo: a kept forecast
// is returned as it was computed; a computed one is kept. fc is made only
// when a forecast is missing (an answer mode's recoveries are simulated
// once, for the first ε not kept).
func (p EpsilonSweep) memoized(fp *laplacian.Fingerprint, mode string, fc func(eps float64) (Forecast, error)) func(eps float64) (Forecast, error) {
	return func(eps float64) (Forecast, error) {
		key := p.memoKey(fp, mode, eps)
		if key != "" {
			if f, ok := p.Memo.Load(key); ok {
				f.Reused = true
				return f, nil
			}
		}
		f, err := fc(eps)
		if err == nil && key != "" {
			f.Reused = false
			p.Memo.Store(key, f)
		}
		return f, err
	}
}

// Held returns the ε of the sweep whose row of mode the memo holds: what
// a run of the sweep would read instead of simulating (an estimate prices
// the rest).
func (p EpsilonSweep) Held(mode string) []float64 {
	if p.Memo == nil {
		return nil
	}
	fp := p.Graph.Graph.Fingerprint()
	return p.held(&fp, mode)
}

// held is Held for the graph's fingerprint fp (nil: nothing is kept).
func (p EpsilonSweep) held(fp *laplacian.Fingerprint, mode string) []float64 {
	var out []float64
	for _, eps := range p.Epsilons {
		if key := p.memoKey(fp, mode+" row", eps); key != "" {
			if _, ok := p.Memo.Load(key); ok {
				out = append(out, eps)
			}
		}
	}
	return out
}
