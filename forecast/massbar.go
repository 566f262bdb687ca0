package forecast

// massBar is massCurves' one bar over every curve's work, counted in
// trials as they are done: the grid's points (a round each foreseen),
// the paired test's mass 0, the verdict curves' refinements and locate's
// step. Its count never goes back — each piece of work starts where the
// last ended, whatever order the curves run their work in — and its total
// grows by what a piece takes beyond its share (a point's further rounds,
// a refinement past refineMax), so that the count does not sit at a
// piece's end (issue 79: "96/4400 → 24/4400", a point's second round
// restarting inside its slot).
type massBar struct {
	report      func(done, total int) // nil: no bar
	done, total int
	shown       [2]int // the last count and total reported
}

// part runs one piece of work given share trials of the bar: after it,
// the count is past the share and whatever the piece grew the total by
// (work foreseen and not needed — a point taken as sure, refinements not
// asked — is skipped).
func (b *massBar) part(share int, run func() error) error {
	done, total := b.done, b.total
	err := run()
	b.done = max(b.done, done+share+b.total-total)
	b.show()
	return err
}

// slot begins a piece of size trials at the bar's count; past its size
// it grows by grow trials at a time (0: by what it overran).
func (b *massBar) slot(size, grow int) *barSlot {
	b.show()
	return &barSlot{b: b, start: b.done, size: size, grow: grow}
}

// grown adds n trials of work to the bar's total (a piece not foreseen).
func (b *massBar) grown(n int) {
	b.total += n
	b.show()
}

// show reports the count, below the total until the run ends, if it
// moved on or the total changed.
func (b *massBar) show() {
	if b.report == nil {
		return
	}
	d := max(min(b.done, b.total-1), b.shown[0])
	if d == b.shown[0] && b.total == b.shown[1] {
		return
	}
	b.shown = [2]int{d, b.total}
	b.report(d, b.total)
}

// end reports the run done.
func (b *massBar) end() {
	if b.report != nil {
		b.report(b.total, b.total)
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
