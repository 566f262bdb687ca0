package recovery

import (
	"math"
	"runtime"
	"sync"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// keptShare is the modelled share of the pass's sources whose second
// action runs: those keepsNothing does not prove to keep no pair. It
// applies act to keepSampleColumns sources spread evenly over the nodes,
// applyWidth columns a goroutine as the pass does, and returns the share
// of them keepsNothing keeps — each the pass's own decision for that
// source (the same action, and a column's numbers are the same in any
// batch of two or more). On astro-ph at τ = 1 most sources skip it, on an
// LFR graph about a quarter: priced as two actions each, the pass was
// said 1.5× (astro-ph) and 1.26× (LFR 2·10⁴) its time (issue 79). The
// sample is smaller where its columns would take long (keepSampleSteps).
func keptShare(g *laplacian.Graph, act *expm.Chebyshev, tol float64) float64 {
	n := g.N()
	if n < keepSampleColumns {
		return 1 // priced at two actions each
	}
	m := keepSampleColumns
	nnz := 2*float64(g.NumEdges()) + float64(n)
	for m > applyWidth && float64(m)*float64(act.Degree())*nnz > keepSampleSteps {
		m /= 2
	}
	c := &Certifier{g: g, act: act, tol: tol, eta: act.ErrorBound()}
	one := act.WithWorkers(1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	kept := 0
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for lo := 0; lo < m; lo += applyWidth {
		b := applyWidth
		nodes := make([]int, b)
		for k := range nodes {
			nodes[k] = int((float64(lo+k) + 0.5) * float64(n) / float64(m))
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			k := c.sampleKept(one, nodes)
			mu.Lock()
			kept += k
			mu.Unlock()
		}()
	}
	wg.Wait()
	return math.Min(1, float64(kept)/float64(m))
}

// sampleKept is how many of nodes (two or more) keepsNothing does not
// prove to keep no pair, from their columns act·e_j centred.
func (c *Certifier) sampleKept(act expm.Action, nodes []int) int {
	n, b := c.g.N(), len(nodes)
	x, cols := make([]float64, n*b), make([]float64, n*b)
	for k, j := range nodes {
		x[j*b+k] = 1
	}
	act.Apply(cols, x, b)
	norm := make([]float64, b)
	P := centeredBlock(cols, n, b, 0, norm, nil)
	cmin := candidateCos(c.tol)
	chord := math.Sqrt(2 - 2*cmin)
	kept := 0
	for k, j := range nodes {
		if !c.keepsNothing(P, b, k, j, norm[k], cmin, chord) {
			kept++
		}
	}
	return kept
}

// keepSampleColumns is how many sources keptShare samples: the share to
// about ±0.09 (its binomial standard error at one half), the pass's
// steps to about ±6 %.
const keepSampleColumns = 32

// keepSampleSteps bounds keptShare's work in nonzero-column-steps (about
// 0.15 s of a core at 0.3 ns a step): on graphs past it the sample is
// halved, down to applyWidth columns.
const keepSampleSteps = 1e9
