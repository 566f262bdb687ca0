package forecast

import (
	"math"
	"sync"
)

// barWeights are what the bar counts a piece of work besides a trial
// scored as, in trials scored at one point (its recovery, ranking and
// verdict): a trial drawn into the pool (draw: its diffusions, a block's
// actions) and a null draw of locate's verdict (null: one column action of
// the model's transpose). The bar counts work in these units, so that
// the pool's draws and the verdicts' nulls, paid before any trial they
// serve is scored, move it as far as they take time.
type barWeights struct{ draw, null int }

// defaultBarWeights are the weights where no cost model prices the step
// (MassCurves on its own): about 20× and 6× on the graphs cost's rates
// were timed on (issue 79).
var defaultBarWeights = barWeights{draw: 20, null: 6}

// weights are the bar's weights the step's cost model gives (cost's
// estimate of it: a trial drawn, a null draw and a trial scored, in
// seconds): each price over a scoring's, at least 1; the defaults where it
// prices no scoring (the zero PilotCost).
func (p PilotCost) weights() barWeights {
	if !(p.Score > 0) || !(p.Draw > 0) || !(p.Null > 0) {
		return defaultBarWeights
	}
	w := func(s float64) int { return int(max(1, math.Round(min(s/p.Score, 1e6)))) }
	return barWeights{draw: w(p.Draw), null: w(p.Null)}
}

// massBar is massCurves' one bar over every curve's work, counted in
// trials scored as they are done: the grid's points (a round each
// foreseen), the paired test's mass 0, the verdict curves' refinements
// and locate's step; the pool's trials drawn, w.draw each (drawPlanned
// foreseen, issue 79: "400/22200 (1%), ETA 27m15s" for a step of 33 s,
// its draws uncounted); and the verdicts' null draws, w.null each
// (nullPlanned foreseen: a stall of 4–6 s with no progress, issue 79). Its count never goes back — each
// piece of work starts where the last ended, whatever order the curves
// run their work in — and its total grows by what a piece takes beyond
// its share (a point's further rounds, a refinement past refineMax,
// blocks drawn or nulls past those foreseen), so that the count does not sit at a
// piece's end (issue 79: "96/4400 → 24/4400", a point's second round
// restarting inside its slot). Draws may be told from the pool's workers:
// mu guards the counts.
type massBar struct {
	report      func(done, total int) // nil: no bar
	mu          sync.Mutex
	w           barWeights
	done, total int    // trials scored, counted and foreseen
	drawn       int    // the pool's draws, in trials scored
	drawPlanned int    // the draws foreseen, in trials scored
	nulls       int    // the verdicts' null draws, in trials scored
	nullPlanned int    // the null draws foreseen, in trials scored
	shown       [2]int // the last count and total reported
}

// part runs one piece of work given share trials of the bar: after it,
// the count is past the share and whatever the piece grew the total by
// (work foreseen and not needed — a point taken as sure, refinements not
// asked — is skipped).
func (b *massBar) part(share int, run func() error) error {
	b.mu.Lock()
	done, total := b.done, b.total
	b.mu.Unlock()
	err := run()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = max(b.done, done+share+b.total-total)
	b.show()
	return err
}

// slot begins a piece of size trials at the bar's count; past its size
// it grows by grow trials at a time (0: by what it overran).
func (b *massBar) slot(size, grow int) *barSlot {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.show()
	return &barSlot{b: b, start: b.done, size: size, grow: grow}
}

// grown adds n trials of work to the bar's total (a piece not foreseen).
func (b *massBar) grown(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += n
	b.show()
}

// drew counts trials drawn into the pool (TrialPool.drew).
func (b *massBar) drew(trials int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drawn += trials * b.w.draw
	b.show()
}

// nulled counts k null draws of the verdicts' tests
// (verdictTests.nulled).
func (b *massBar) nulled(k int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nulls += k * b.w.null
	b.show()
}

// counts is the bar's count and total: the trials scored, the draws and
// the null draws.
func (b *massBar) counts() (done, total int) {
	return b.done + b.drawn + b.nulls, b.total + max(b.drawPlanned, b.drawn) + max(b.nullPlanned, b.nulls)
}

// show reports the count, below the total until the run ends, if it
// moved on or the total changed.
func (b *massBar) show() {
	if b.report == nil {
		return
	}
	done, total := b.counts()
	d := max(min(done, total-1), b.shown[0])
	if d == b.shown[0] && total == b.shown[1] {
		return
	}
	b.shown = [2]int{d, total}
	b.report(d, total)
}

// end reports the run done.
func (b *massBar) end() {
	if b.report != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		_, total := b.counts()
		b.report(total, total)
	}
}

// barSlot is one piece of a massBar's work.
type barSlot struct {
	b                    *massBar
	start, size, grow, n int
}

// add counts k more trials of the piece.
func (s *barSlot) add(k int) {
	s.to(s.n + k)
}

// to sets the piece's count to n trials (never back).
func (s *barSlot) to(n int) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if n <= s.n {
		return
	}
	s.n = n
	for s.n > s.size {
		g := s.grow
		if g <= 0 {
			g = s.n - s.size
		}
		s.size += g
		s.b.total += g
	}
	s.b.done = max(s.b.done, s.start+s.n)
	s.b.show()
}
