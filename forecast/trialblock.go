package forecast

import (
	"math/rand/v2"
	"sync"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/trials"
	"github.com/graphcloak/graphcloak/recovery"
)

// trialBlock is how many trials' readings are diffused together: one
// pass of the action over the graph serves them all (expm's kernels run
// 32 columns a row at once), where trial by trial each pass served one.
const trialBlock = 32

// TrialBlock is trialBlock, for an estimate of a simulation's time: a
// block's draw is shared by its trials.
const TrialBlock = trialBlock

// trialDraw is one trial's draw: its sources, the mass at them (f0), the
// noisy readings ỹ = exp(−τL)·f0 + N(0, σ²), and, when the posterior
// can use them, the correlations c0 = exp(−τL)·ỹ (nil: the estimator
// computes its own).
//
// With missing sensors (Simulation.Missing, Reported) y holds the readings
// of the reporting sensors only, model is their recovery model and c0 is
// M_Sᵀ·ỹ_S; err is the failure to build that model.
type trialDraw struct {
	src   []int
	f0, y []float64
	c0    []float64
	model *recovery.Model
	err   error
}

// blockDraws draws the trials of a simulation in blocks of trialBlock, each
// block once, when a trial of it is first asked for. Every trial draws from
// its own seeded stream in the order a lone trial does (its sources, then
// its noise node by node), so a trial's draw is the same whichever block,
// worker or order computed it; only the action's rounding differs from a
// column applied alone (within its certified error).
type blockDraws struct {
	e       *Simulation
	act     expm.Action
	model   *recovery.Model
	sigma   float64
	post    bool // the estimator is the posterior: c0 is computed too
	once    []sync.Once
	mu      sync.Mutex
	pending map[int]*trialDraw
}

func newBlockDraws(e *Simulation, act expm.Action, model *recovery.Model, sigma float64, est recovery.Estimator) *blockDraws {
	_, post := est.(recovery.Posterior)
	return &blockDraws{e: e, act: act, model: model, sigma: sigma, post: post,
		once: make([]sync.Once, (e.Trials+trialBlock-1)/trialBlock), pending: map[int]*trialDraw{}}
}

// draw returns trial t's draw (and forgets it: each trial asks once).
func (d *blockDraws) draw(t int) *trialDraw {
	blk := t / trialBlock
	d.once[blk].Do(func() { d.fill(blk) })
	d.mu.Lock()
	defer d.mu.Unlock()
	td := d.pending[t]
	delete(d.pending, t)
	return td
}

// fill draws block blk: the sources of each trial, the action on the b
// columns of f0 at once, each trial's noise, and (posterior) the action on
// the b columns of ỹ at once.
func (d *blockDraws) fill(blk int) {
	e := d.e
	n := e.Graph.N()
	lo := blk * trialBlock
	b := min(trialBlock, e.Trials-lo)
	draws := make([]*trialDraw, b)
	rngs := make([]*rand.Rand, b)
	x := make([]float64, n*b)
	for k := range draws {
		rngs[k] = trials.RNG(e.Seed, lo+k)
		td := &trialDraw{src: rngs[k].Perm(n)[:e.Sources], f0: make([]float64, n), y: make([]float64, n)}
		for _, s := range td.src {
			td.f0[s] = e.SourceMass
			x[s*b+k] = e.SourceMass
		}
		draws[k] = td
	}
	yb := make([]float64, n*b)
	d.act.Apply(yb, x, b)
	for k, td := range draws {
		// The noise from the trial's own stream, after its sources, in
		// the order a lone trial draws it.
		for i := range td.y {
			td.y[i] = yb[i*b+k] + d.sigma*rngs[k].NormFloat64()
			yb[i*b+k] = td.y[i]
		}
	}
	if d.post {
		c := make([]float64, n*b)
		if d.model.ApplyBlock(c, yb, b) {
			for k, td := range draws {
				td.c0 = make([]float64, n)
				for i := range td.c0 {
					td.c0[i] = c[i*b+k]
				}
			}
		}
	}
	d.mu.Lock()
	for k, td := range draws {
		d.pending[lo+k] = td
	}
	d.mu.Unlock()
}
