package expm

import (
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/internal/cputime"
	"github.com/graphcloak/graphcloak/laplacian"
)

// StepRate is the measured speed of the sparse Chebyshev kernel on one
// graph: Seconds a step (one nonzero of L, diagonal included, times one
// column times one degree) takes when Workers goroutines apply blocks at
// once, as the answer audit's pass does — wall time with the machine's
// cores free for them (MeasureStepRate).
type StepRate struct {
	Seconds float64
	Workers int
	// Elapsed is how long the measurement took.
	Elapsed time.Duration
}

// MeasureStepRate times the Chebyshev kernel on g as the certifier's pass
// runs it — GOMAXPROCS goroutines, each applying its own block of 32
// columns with one worker — at a degree of about rateDegree (fewer where
// a round would take more than a sixth of the budget at the reference
// rate, down to minRateDegree), in rounds for about budget (at least
// three; default 0.3 s) or until they agree (settledRounds), priced by
// the median round. An application's
// own cost (the rows gathered into the kernel's order and back, the
// first step) is a few steps' worth, so the time of a step is the same
// at any degree well above that: the rate prices the actions of the pass
// (K = 66–92 at τ = 1) and the trials. Timed at the degree of τ = 8/B (3
// on astro-ph and LFR 2·10⁴) that cost was half the time on astro-ph,
// whose steps are fast (its rows in the kernel's order are near one
// another), and the rate priced its audit at 1.5× its time (issue 79). A
// round is timed by the CPU time the process spent in it over the
// workers (cputime.Clock), not the wall time, when that is less: the
// rate is then the machine's with its cores free for the work, not the
// moment's load's (on a machine at load 20 the wall rate priced e-mail
// Enron's audit at 2 h 5 min, which took 41 min as the load fell). An
// edgeless graph gives the reference constant.
//
// cols, when given and positive, is the block's width instead of 32 (at most: fewer for
// a budget too short): the answer audit's pass applies its blocks 16
// columns at a time, 1.2× faster a column than 32 on LFR 2·10⁴
// (BenchmarkChebyshevBlockWidth, issue 79).
func MeasureStepRate(g *laplacian.Graph, budget time.Duration, cols ...int) StepRate {
	if budget <= 0 {
		budget = 300 * time.Millisecond
	}
	w := max(1, runtime.GOMAXPROCS(0))
	start := time.Now()
	B, _ := lambdaMaxBound(g)
	if B == 0 || g.N() == 0 {
		return StepRate{Seconds: costStep / float64(w), Workers: w, Elapsed: time.Since(start)}
	}
	n := g.N()
	nnz := 2*float64(g.NumEdges()) + float64(n)
	b, target := rateShape(nnz, budget, cols...)
	ch, err := NewChebyshev(g.Laplacian(), 2*rateSeriesA(target)/B, 0.1)
	if err != nil {
		return StepRate{Seconds: costStep / float64(w), Workers: w, Elapsed: time.Since(start)}
	}
	ch = ch.WithWorkers(1)
	K := max(1, ch.Degree())
	xs, ys := make([][]float64, w), make([][]float64, w)
	for i := range xs {
		xs[i], ys[i] = make([]float64, n*b), make([]float64, n*b)
		for k := 0; k < b; k++ {
			xs[i][((i*b+k)*7919%n)*b+k] = 1
		}
	}
	// Rounds of w blocks at once until the budget is spent; the median
	// round prices a step (a round that another process preempted, or
	// one that ran alone on a busy machine, moves it least).
	var times []float64
	t0 := time.Now()
	for len(times) < 3 || time.Since(t0) < budget {
		clock := cputime.Start()
		var wg sync.WaitGroup
		for i := range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ch.Apply(ys[i], xs[i], b)
			}()
		}
		wg.Wait()
		times = append(times, clock.Seconds()) // with w = GOMAXPROCS cores its own
		if time.Since(t0) > 2*budget || settledRounds(times) {
			break
		}
	}
	slices.Sort(times)
	steps := float64(w*K*b) * nnz
	return StepRate{Seconds: times[len(times)/2] / steps, Workers: w, Elapsed: time.Since(start)}
}

// settledRounds reports whether the rounds timed so far already price a
// step: at least settledMinRounds of them, and the three around their
// median within settledSpread of each other. Where the rounds agree (a
// quiet machine) the rate is had in a
// fraction of the budget and --estimate answers sooner; where they do
// not (load), the rounds run for the budget as before.
func settledRounds(times []float64) bool {
	n := len(times)
	if n < settledMinRounds {
		return false
	}
	t := slices.Sorted(slices.Values(times))
	lo, mid, hi := t[n/2-1], t[n/2], t[n/2+1]
	return hi-lo <= settledSpread*mid
}

// settledMinRounds and settledSpread: settledRounds's rule.
const (
	settledMinRounds = 5
	settledSpread    = 0.03
)

// rateShape is the block width and series degree MeasureStepRate times
// on a graph of nnz nonzeros within budget: 32 columns or cols, fewer
// (not below minRateBlock) when one round would take more than a sixth
// of the budget at the reference rate even at minRateDegree; the degree
// as high as that sixth allows, up to rateDegree.
func rateShape(nnz float64, budget time.Duration, cols ...int) (b, degree int) {
	b = 32
	if len(cols) > 0 && cols[0] > 0 {
		b = cols[0]
	}
	round := budget.Seconds() / 6
	for b > minRateBlock && costStep*float64(minRateDegree*b)*nnz > round {
		b = max(minRateBlock, b/4)
	}
	return b, min(rateDegree, max(minRateDegree, int(round/(costStep*float64(b)*nnz))))
}

// rateDegree is the degree MeasureStepRate times the kernel at where its
// budget allows: an application's own cost, a few steps' worth, is then
// a tenth of the time or less (astro-ph: 0.31 CPU-ns a step at degree 3,
// 0.165 at 72). minRateDegree is the least it goes down to.
//
// minRateBlock is the narrowest block it times (unless asked for fewer
// columns): the AVX2 kernel's chunk. Narrower blocks run the Go path,
// several times slower a column than any block the work applies, and a
// rate timed on two columns priced the trials of locate on LFR 10⁵ at 7×
// their time (issue 79); a round there takes longer than a sixth of the
// budget instead.
const (
	rateDegree    = 32
	minRateDegree = 8
	minRateBlock  = 8
)

// rateSeriesA is a = τB/2 at which the series of tolerance 0.1 has at
// least K terms by its truncation bound (NewChebyshev's k1; the rounding
// margin adds none at that tolerance).
func rateSeriesA(K int) float64 {
	a := 1.0
	for ; a < 1e6; a *= 1.25 {
		k2 := K
		for ChebyshevTailBound(a, k2) > 1e-4 {
			k2++
		}
		if tails := chebyshevTails(a, BesselIe(a, k2)); tails[K-1] > 0.1 {
			return a
		}
	}
	return a
}
