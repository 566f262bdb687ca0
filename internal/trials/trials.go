// Package trials runs the seeded trials of a simulation (package
// forecast's forecasts, package experiment's experiments). Simulations
// are not releases: their noise is drawn from a seeded math/rand/v2 PCG
// stream so that every number they report can be reproduced from the
// seed. Trial t uses its own stream PCG(seed, t), so results do not depend
// on the number of workers.
package trials

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/graphcloak/graphcloak/recovery"
)

// Workers is how many goroutines run trials: w (GOMAXPROCS when w ≤ 0),
// never more than the trials nor fewer than one.
func Workers(w, trials int) int {
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return max(1, min(w, trials))
}

// RNG is the noise and source stream of trial t.
func RNG(seed uint64, t int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d^uint64(t)))
}

// Run runs fn(t) for t = 0..trials−1 on w goroutines, stopping at
// the first error or when ctx is cancelled. progress, when non-nil, is
// called after each finished trial (serialised).
func Run(ctx context.Context, trials, w int, progress func(done, total int), fn func(t int) error) error {
	var (
		mu    sync.Mutex
		next  int
		done  int
		first error
		wg    sync.WaitGroup
	)
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next >= trials {
					mu.Unlock()
					return
				}
				if err := ctx.Err(); err != nil {
					first = err
					mu.Unlock()
					return
				}
				t := next
				next++
				mu.Unlock()
				err := fn(t)
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
				done++
				if progress != nil {
					progress(done, trials)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// Solver returns the per-trial recovery: the estimate's mass f̂, the
// per-node weights to rank (the posterior when the estimator has one, else
// f̂), and whether the estimator reported no detectable source (NoSource,
// or Infeasible: no f in the box fits the data). A BPDN run that stops
// short of its certified gap still returns its estimate, which is used.
func Solver(model *recovery.Model, sigma float64, sources int, est recovery.Estimator) func(y []float64) (f, weights []float64, noSource bool, err error) {
	return func(y []float64) ([]float64, []float64, bool, error) {
		p := model.Problem(y, sigma)
		p.Sources = sources
		r, err := recovery.Solve(est, p)
		if err != nil {
			return nil, nil, false, err
		}
		f, weights, noSource := Outcome(r, model.N())
		return f, weights, noSource, nil
	}
}

// Outcome is what a trial ranks from an estimate r over n locations: its
// F and weights, or zeros and noSource when r detected no source.
func Outcome(r *recovery.Estimate, n int) (f, weights []float64, noSource bool) {
	if r.NoSource() {
		zero := make([]float64, n)
		return zero, zero, true
	}
	return r.F, r.Weights(), false
}

// FiniteOrNil maps NaN (an undefined statistic, e.g. the EMD mean when no
// trial detected a source) to JSON null.
func FiniteOrNil(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Stats returns mean, standard deviation and maximum (NaN for no values).
func Stats(v []float64) (mean, std, mx float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	std = math.Sqrt(std / float64(len(v)))
	return mean, std, slices.Max(v)
}

// Sum is the sum of v.
func Sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// Normalised returns max(v,0)/Σ max(v,0) (v itself when the sum is zero).
func Normalised(v []float64) []float64 {
	out := make([]float64, len(v))
	s := 0.0
	for i, x := range v {
		out[i] = max(x, 0)
		s += out[i]
	}
	if s > 0 {
		for i := range out {
			out[i] /= s
		}
	}
	return out
}
