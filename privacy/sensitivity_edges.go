package privacy

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
)

// edgeClass is a set of edges with equal q_e by symmetry, represented by
// the edge (i, j); u is the cheap proven bound on q_e.
type edgeClass struct {
	i, j int
	size int
	u    float64
	hint float64 // heuristic: how likely the class is the maximiser
}

// edgeClasses groups the edges into classes of equal q_e: swapping two
// false twins (falseTwins: equal weighted neighbour lists) is a
// weight-preserving automorphism of the graph, so every edge between the
// twin classes of i and j has the same q_e as (i, j).
func edgeClasses(g *laplacian.Graph, tau float64) []edgeClass {
	tw := falseTwins(g)
	byPair := make(map[[2]int]int)
	var cl []edgeClass
	g.ForEachEdge(func(i, j int, w float64) {
		ri, rj := tw.rep[i], tw.rep[j]
		if ri > rj {
			ri, rj = rj, ri
		}
		key := [2]int{ri, rj}
		if c, ok := byPair[key]; ok {
			cl[c].size++
			return
		}
		byPair[key] = len(cl)
		lo, hi := math.Min(g.Degree(i), g.Degree(j)), math.Max(g.Degree(i), g.Degree(j))
		cl = append(cl, edgeClass{i: i, j: j, size: 1, u: cheapEdgeBound(g, i, j, w, tau), hint: hi / lo})
	})
	return cl
}

// lanczosSeeds is the number of classes with the strongest hint that are
// refined first, so that a good lower bound prunes the rest early.
const lanczosSeeds = 8

// lanczosGraphSensitivity certifies Δ2 with a Lanczos bracket per edge
// class (edgeClasses, lanczosWork), pruned against the best proven lower
// bound of the maximum:
//
//  1. Classes are visited by decreasing cheap bound U_e, ties broken by the
//     hint (a low-degree endpoint on a high-degree node: a leaf on a hub is
//     the usual maximiser from τ ≈ 0.5 on), after the lanczosSeeds classes
//     with the strongest hint.
//  2. A class whose U_e is at most the best lower bound is settled; any
//     other is refined until its upper bound drops to the best lower bound
//     (pruned) or its bracket is narrow.
//  3. Δ2 is α·max over classes of the upper bound (U_e for classes not
//     reached before the time budget ended), a proven upper bound in every
//     case; the best lower bound gives the slack. Exact when every class
//     was settled.
//
// Workers take classes in this order from a shared counter and share the
// best lower bound; the calling goroutine reports progress.
func lanczosGraphSensitivity(g *laplacian.Graph, tau, alpha float64, opt GraphOptions, s Sensitivity) Sensitivity {
	start := time.Now()
	cl := edgeClasses(g, tau)
	order := lanczosOrder(cl)

	workers := runtime.GOMAXPROCS(0)
	kmax := lanczosMaxSteps(g, workers*columnBlock)
	var deadline time.Time
	if opt.TimeBudget > 0 {
		deadline = start.Add(opt.TimeBudget)
	}
	lo := make([]float64, len(cl))
	up := make([]float64, len(cl))
	done := make([]atomic.Bool, len(cl))
	var bestLo atomic.Uint64 // math.Float64bits of the best lower bound on max q_e
	floor := func() float64 { return math.Float64frombits(bestLo.Load()) }
	raise := func(q float64) {
		for {
			old := bestLo.Load()
			if q <= math.Float64frombits(old) || bestLo.CompareAndSwap(old, math.Float64bits(q)) {
				return
			}
		}
	}
	var next, settled atomic.Int64
	// take hands out the next class that its cheap bound does not settle.
	take := func() (c, i, j int, ok bool) {
		for {
			k := int(next.Add(1) - 1)
			if k >= len(order) || (!deadline.IsZero() && time.Now().After(deadline)) {
				return 0, 0, 0, false
			}
			c := order[k]
			if cl[c].u > floor() {
				return c, cl[c].i, cl[c].j, true
			}
			lo[c], up[c] = 0, math.Sqrt(cl[c].u)
			done[c].Store(true)
			settled.Add(int64(cl[c].size))
		}
	}
	finish := func(c int, l, u float64) {
		// A bracket cut short by the deadline may be looser than U_e.
		lo[c], up[c] = l, math.Min(u, math.Sqrt(cl[c].u))
		raise(l * l * (1 - 4*roundoffU))
		done[c].Store(true)
		settled.Add(int64(cl[c].size))
	}
	report := func() {
		if opt.Progress != nil {
			opt.Progress(int(settled.Load()), g.NumEdges())
		}
		if opt.Status != nil {
			opt.Status(SensitivityStatus{Edges: g.NumEdges(), EdgesCertified: int(settled.Load()),
				Delta2: roundUpDelta(alpha * lanczosUpper(cl, up, done) * (1 + 2*roundoffU)), Elapsed: time.Since(start)})
		}
	}
	report() // the cheap bounds alone
	omega := newLanczosWeights(g)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			newLanczosBlock(g, omega, tau, kmax).refine(take, floor, finish, deadline)
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-finished:
			waiting = false
		case <-tick.C:
			report()
		}
	}
	report()
	return lanczosResult(cl, lo, up, done, floor(), alpha, s)
}

// lanczosOrder sorts cl by decreasing cheap bound, ties by decreasing
// hint, and returns the visiting order: the lanczosSeeds classes with the
// strongest hint first, then the rest in sorted order.
func lanczosOrder(cl []edgeClass) []int {
	sort.Slice(cl, func(a, b int) bool {
		if cl[a].u != cl[b].u {
			return cl[a].u > cl[b].u
		}
		return cl[a].hint > cl[b].hint
	})
	byHint := make([]int, len(cl))
	for k := range byHint {
		byHint[k] = k
	}
	sort.SliceStable(byHint, func(a, b int) bool { return cl[byHint[a]].hint > cl[byHint[b]].hint })
	order := append([]int(nil), byHint[:min(lanczosSeeds, len(byHint))]...)
	seed := make(map[int]bool, len(order))
	for _, c := range order {
		seed[c] = true
	}
	for k := range cl {
		if !seed[k] {
			order = append(order, k)
		}
	}
	return order
}

// lanczosUpper is the current proven upper bound on max ‖exp(−τL)b_e‖:
// the refined upper bounds, and √U_e for classes not yet done.
func lanczosUpper(cl []edgeClass, up []float64, done []atomic.Bool) float64 {
	best := 0.0
	for c := range cl {
		if done[c].Load() {
			best = math.Max(best, up[c])
		} else {
			best = math.Max(best, math.Sqrt(cl[c].u))
		}
	}
	return best
}

// lanczosResult turns the brackets into Δ2 (see lanczosGraphSensitivity).
func lanczosResult(cl []edgeClass, lo, up []float64, done []atomic.Bool, qLo, alpha float64, s Sensitivity) Sensitivity {
	best, arg := -1.0, 0
	all := true
	for c := range cl {
		v := math.Sqrt(cl[c].u)
		if done[c].Load() {
			v = up[c]
			// Settled: pruned below the lower bound, or a narrow bracket.
			if v*v > qLo && v-lo[c] > ExactRelativeSlack*v {
				all = false
			}
		} else {
			all = false
		}
		if v > best {
			best, arg = v, c
		}
	}
	s.Edge = [2]int{cl[arg].i, cl[arg].j}
	s.Delta2 = roundUpDelta(alpha * best * (1 + 2*roundoffU))
	lower := roundDownDelta(alpha * math.Sqrt(qLo) * (1 - 2*roundoffU))
	s.Slack = math.Max(0, s.Delta2-lower)
	s.Exact = all
	s.Method = "lanczos-edges"
	s.Kappa2 = math.NaN()
	return s
}
