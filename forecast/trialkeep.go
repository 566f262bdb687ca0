package forecast

import (
	"strconv"

	"github.com/graphcloak/graphcloak/laplacian"
)

// trialPoolRow is the memo key's mode of a pool's kept blocks.
const trialPoolRow = "trial pool"

// keptTrials keeps one pool's blocks in a sweep's KeptTrials and
// KeepTrials, each under the sweep's memoKey at ε = 0 (every parameter of
// the simulation but ε: the graph, τ, the sources, the trials and the
// seed the pool is drawn from, and more) and the block's index. What is
// kept is what the actions made, a = exp(−τL)·1_S, exp(−τL)·a and
// exp(−τL)·z, bit for bit: the sources and the noise are drawn again
// from their streams (cheap), so a block read is the block drawn. The
// per-node forecasts' pool (about 14 CPU-s of a plan's 85 with one ε
// more on LFR 2·10⁴) is read, not drawn, by a plan with one ε more. The
// trials are simulated readings from the model, never real data:
// keeping them costs no privacy.
type keptTrials struct {
	load func(key string, floats int) ([]float64, bool)
	keep func(key string, x []float64)
	key  string
}

// keptTrials is p's kept pool on the graph of fingerprint fp; nil
// without a Memo and KeptTrials and KeepTrials, or with missing sensors
// (a block's rows and model then differ: never kept).
func (p EpsilonSweep) keptTrials(fp *laplacian.Fingerprint) *keptTrials {
	e := p.Graph
	if p.Memo == nil || p.KeptTrials == nil || p.KeepTrials == nil || e.Missing != 0 || e.Reported != nil {
		return nil
	}
	key := p.memoKey(fp, trialPoolRow, 0)
	if key == "" {
		return nil
	}
	return &keptTrials{load: p.KeptTrials, keep: p.KeepTrials, key: key}
}

// blockKey names block blk.
func (k *keptTrials) blockKey(blk int) string { return k.key + "-" + strconv.Itoa(blk) }

// obtain is block blk: read from the pool's store when kept there, else
// drawn (and kept, when the pool keeps its blocks).
func (p *TrialPool) obtain(blk int) *poolBlock {
	if p.store == nil || p.missing != 0 || p.reported != nil || !p.model.Operator() {
		return p.draw(blk)
	}
	if out, ok := p.read(blk); ok {
		return out
	}
	out := p.draw(blk)
	if out.correlated && out.err == nil {
		x := make([]float64, 0, 3*trialBlock*p.n)
		for k := range trialBlock {
			x = append(append(append(x, out.a[k]...), out.ca[k]...), out.cz[k]...)
		}
		p.store.keep(p.store.blockKey(blk), x)
	}
	return out
}

// read is block blk from the pool's store: its sources and noise drawn
// again, its actions' results read; not ok when the store lacks it.
func (p *TrialPool) read(blk int) (*poolBlock, bool) {
	n := p.n
	x, ok := p.store.load(p.store.blockKey(blk), 3*trialBlock*n)
	if !ok {
		return nil, false
	}
	out := p.sourcesAndNoise(blk)
	for k := range trialBlock {
		v := x[3*k*n : 3*(k+1)*n : 3*(k+1)*n]
		out.a[k], out.ca[k], out.cz[k] = v[:n:n], v[n:2*n:2*n], v[2*n:]
	}
	out.correlated = true
	if p.drew != nil {
		p.drew(trialBlock) // its share of the bar, done
	}
	return out, true
}

// HeldTrials reports whether the sweep's HasTrials finds the per-node
// forecasts' pool of trials at τ kept (its first block): a run reads
// them instead of drawing them (an estimate prices the rest).
func (p EpsilonSweep) HeldTrials() bool {
	fp := p.Graph.Graph.Fingerprint()
	k := p.keptTrials(&fp)
	if k == nil || p.HasTrials == nil {
		return false
	}
	return p.HasTrials(k.blockKey(0), 3*trialBlock*p.Graph.Graph.N())
}
