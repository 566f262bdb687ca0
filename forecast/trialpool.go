package forecast

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/trials"
	"github.com/graphcloak/graphcloak/recovery"
)

// A TrialPool draws a forecast's trials once for every noise level σ and
// source mass m it is asked at: trial t's sources S_t and standard normal
// noise z_t, and the diffusions they need, a_t = exp(−τL)·1_S and
// exp(−τL)·a_t, exp(−τL)·z_t. The readings at (m, σ) are then
// ỹ = m·a_t + σ·z_t and their correlations exp(−τL)·ỹ = m·exp(−τL)·a_t +
// σ·exp(−τL)·z_t (the action is linear), so the forecasts of a plan at
// five ε and nine masses pay for the actions of one set of trials, not of
// fifty. Their points share sources and noise (common random numbers):
// each point's rate and interval are those of its own independent trials,
// and differences between points are not blurred by resampling.
//
// A Simulation with a Pool takes its draws from it (its Seed then only
// names the run); the pool fixes the graph, τ, the sources per trial and
// the seed. It is safe for concurrent use.
type TrialPool struct {
	n, sources int
	tau        float64
	seed       uint64
	act        expm.Action
	model      *recovery.Model
	// missing and reported are the simulation's (Simulation.Missing,
	// Simulation.Reported); fixed is the model of the reported rows,
	// built once.
	missing   float64
	reported  []int
	fixedOnce *sync.Once
	fixed     *recovery.Model
	fixedErr  error
	// budget is how many bytes of blocks the pool keeps; a block beyond it
	// is drawn again whenever it is asked for (same draws, more time).
	budget int64

	mu     sync.Mutex
	blocks map[int]*poolEntry
	kept   int64
	// blocksDrawn counts the blocks drawn (again too, past the budget): the
	// diffusions the pool paid for.
	blocksDrawn atomic.Int64
	// drew, when non-nil, is told of each block drawn once its draws are
	// done (a bar counting them: massBar.drew), and of each block read
	// from kept instead.
	drew func(trials int)
	// store, when non-nil, keeps the blocks across runs (keptTrials): a
	// block kept is read, not drawn.
	store *keptTrials
}

// poolEntry is one block of trialBlock trials, drawn once.
type poolEntry struct {
	once  sync.Once
	block *poolBlock
	bytes int64 // counted in kept
}

// poolBlock holds trialBlock consecutive trials' draws, each trial's
// vectors contiguous.
type poolBlock struct {
	src        [][]int
	a, z       [][]float64 // exp(−τL)·1_S and the noise
	ca, cz     [][]float64 // exp(−τL)·a and exp(−τL)·z (the model's action)
	correlated bool        // ca and cz were computed (the model has an operator)
	// rows are the sensors that report in the block's trials (nil: all)
	// and model the recovery model of those rows (nil: the pool's); with
	// rows, ca and cz are exp(−τL)·D·a and exp(−τL)·D·z, D = diag(1_rows):
	// the correlations M_Sᵀ·ỹ_S of the restricted model.
	rows  []int
	model *recovery.Model
	err   error
	// maxima bound the verdict's matched statistic (matchedBelow).
	maxima blockMaxima
}

// trialPoolBytes is how much memory a pool keeps its blocks in.
const trialPoolBytes = 512 << 20

// NewTrialPool builds the pool for simulations like e (its graph, τ,
// sources, trials and seed); e's noise level and mass are not used.
func NewTrialPool(e Simulation) (*TrialPool, error) {
	if _, err := e.check(); err != nil {
		return nil, err
	}
	act, model, err := e.trialModels()
	if err != nil {
		return nil, err
	}
	return e.newTrialPool(act, model), nil
}

// newTrialPool is the pool of e's trials (e checked) on act and model.
func (e *Simulation) newTrialPool(act expm.Action, model *recovery.Model) *TrialPool {
	return &TrialPool{n: e.Graph.N(), sources: e.Sources, tau: e.Tau, seed: e.Seed, act: act, model: model,
		missing: e.Missing, reported: e.Reported, fixedOnce: &sync.Once{},
		budget: trialPoolBytes, blocks: map[int]*poolEntry{}}
}

// drawnBlocks is how many blocks p drew (0 for nil).
func (p *TrialPool) drawnBlocks() int {
	if p == nil {
		return 0
	}
	return int(p.blocksDrawn.Load())
}

// keepFirst forgets the blocks past the pool's first trials trials (a
// later ask draws them again, the same draws): what a caller that reads
// no further needs kept.
func (p *TrialPool) keepFirst(trials int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for blk, en := range p.blocks {
		if blk*trialBlock >= trials {
			p.kept -= en.bytes
			delete(p.blocks, blk)
		}
	}
}

// missingStream names the stream of a block's missing sensors (apart from
// its trials' streams, trials.RNG).
const missingStream = 0x6d697373696e67

// MissingCount is how many of n sensors a fraction q of missing sensors
// leaves out: q·n rounded, at most n − 1 (one sensor always reports).
func MissingCount(n int, q float64) int {
	return min(n-1, int(math.Round(q*float64(n))))
}

// rows are the sensors that report in block blk's trials: the reported
// ones, or all but MissingCount drawn uniformly at random from the pool's
// seed and the block, independent of the trials' sources; nil when every
// sensor reports.
func (p *TrialPool) rows(blk int) []int {
	if p.reported != nil {
		return p.reported
	}
	k := MissingCount(p.n, p.missing)
	if k <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(p.seed, missingStream^uint64(blk)))
	rows := rng.Perm(p.n)[k:]
	slices.Sort(rows)
	return rows
}

// restricted is the recovery model of the given rows: the pool's model
// restricted to them (recovery.Model.Rows), once for the reported rows.
func (p *TrialPool) restricted(rows []int) (*recovery.Model, error) {
	if rows == nil {
		return nil, nil
	}
	if p.reported != nil {
		p.fixedOnce.Do(func() { p.fixed, p.fixedErr = p.model.Rows(p.reported) })
		return p.fixed, p.fixedErr
	}
	return p.model.Rows(rows)
}

// block returns block blk's draws, drawing them at the first ask (and
// again at every ask once the pool is over its budget).
func (p *TrialPool) block(blk int) *poolBlock {
	p.mu.Lock()
	en, ok := p.blocks[blk]
	if !ok {
		bytes := int64(4 * trialBlock * p.n * 8)
		if p.reported == nil && MissingCount(p.n, p.missing) > 0 && !p.model.Operator() {
			bytes += int64(p.n) * int64(p.n) * 8 // the block's dense rows model
		}
		if p.kept+bytes > p.budget {
			p.mu.Unlock()
			return p.obtain(blk)
		}
		p.kept += bytes
		en = &poolEntry{bytes: bytes}
		p.blocks[blk] = en
	}
	p.mu.Unlock()
	en.once.Do(func() { en.block = p.obtain(blk) })
	return en.block
}

// draw computes block blk: each trial's sources then its noise node by
// node from its own stream (as a lone trial draws them), the action on
// the block's source vectors, and the model's action on a and z.
func (p *TrialPool) draw(blk int) *poolBlock {
	p.blocksDrawn.Add(1)
	if p.drew != nil {
		defer p.drew(trialBlock)
	}
	n, b := p.n, trialBlock
	out := p.sourcesAndNoise(blk)
	x := make([]float64, n*b)
	for k, src := range out.src {
		for _, s := range src {
			x[s*b+k] = 1
		}
	}
	ab := make([]float64, n*b)
	p.act.Apply(ab, x, b)
	zb := make([]float64, n*b)
	for k := range b {
		a := make([]float64, n)
		for i := range a {
			a[i] = ab[i*b+k]
			zb[i*b+k] = out.z[k][i]
		}
		out.a[k] = a
	}
	if out.rows = p.rows(blk); out.rows != nil {
		out.model, out.err = p.restricted(out.rows)
		keep := make([]bool, n)
		for _, i := range out.rows {
			keep[i] = true
		}
		for i, ok := range keep { // D·a, D·z: the missing sensors' readings never reach recovery
			if !ok {
				clear(ab[i*b : i*b+b])
				clear(zb[i*b : i*b+b])
			}
		}
	}
	cab, czb := make([]float64, n*b), make([]float64, n*b)
	if p.model.ApplyBlock(cab, ab, b) && p.model.ApplyBlock(czb, zb, b) {
		out.correlated = true
		for k := range b {
			out.ca[k], out.cz[k] = column(cab, b, k), column(czb, b, k)
		}
	}
	return out
}

// sourcesAndNoise is block blk's trials' sources and standard normal
// noise, each trial's drawn from its own stream (trials.RNG) as a lone
// trial draws them: its sources, then its noise node by node.
func (p *TrialPool) sourcesAndNoise(blk int) *poolBlock {
	n, b := p.n, trialBlock
	out := &poolBlock{src: make([][]int, b), a: make([][]float64, b), z: make([][]float64, b),
		ca: make([][]float64, b), cz: make([][]float64, b)}
	for k := range b {
		rng := trials.RNG(p.seed, blk*b+k)
		out.src[k] = rng.Perm(n)[:p.sources]
		z := make([]float64, n)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		out.z[k] = z
	}
	return out
}

// column is column k of a row-major n×b block.
func column(x []float64, b, k int) []float64 {
	c := make([]float64, len(x)/b)
	for i := range c {
		c[i] = x[i*b+k]
	}
	return c
}

// trial is trial t's draw at source mass m and noise σ: f0 = m at the
// sources, ỹ = m·a + σ·z and, when the posterior can use them (post) and
// the model has an operator, c0 = m·exp(−τL)·a + σ·exp(−τL)·z.
func (p *TrialPool) trial(t int, m, sigma float64, post bool) *trialDraw {
	bl := p.block(t / trialBlock)
	k := t % trialBlock
	n := p.n
	td := &trialDraw{src: bl.src[k], f0: make([]float64, n), model: bl.model, err: bl.err}
	for _, s := range td.src {
		td.f0[s] = m
	}
	a, z := bl.a[k], bl.z[k]
	if bl.rows == nil {
		td.y = make([]float64, n)
		for i := range td.y {
			td.y[i] = m*a[i] + sigma*z[i]
		}
	} else {
		td.y = make([]float64, len(bl.rows))
		for j, i := range bl.rows {
			td.y[j] = m*a[i] + sigma*z[i]
		}
	}
	if post && bl.correlated {
		ca, cz := bl.ca[k], bl.cz[k]
		td.c0 = make([]float64, n)
		for i := range td.c0 {
			td.c0[i] = m*ca[i] + sigma*cz[i]
		}
	}
	return td
}

// fits refuses a simulation the pool was not drawn for: another graph or
// number of sources, another τ.
func (p *TrialPool) fits(e *Simulation) error {
	if e.Tau != p.tau {
		return &ParamError{"pool", e.Tau, "was drawn for another τ"}
	}
	if e.Graph.N() != p.n {
		return &ParamError{"pool", e.Graph.N(), "was drawn for another graph"}
	}
	if e.Sources != p.sources {
		return &ParamError{"pool", e.Sources, "was drawn for another number of sources"}
	}
	if e.Missing != p.missing || !slices.Equal(e.Reported, p.reported) {
		return &ParamError{"pool", e.Missing, "was drawn for other missing sensors"}
	}
	return nil
}
