package job

import "fmt"

// calibrationBar is plan's bar "answer calibration": one unit an ε to
// calibrate and audit. An ε whose calibration is kept beside the
// certificate (and its audit with it) is restored in a fraction of that:
// not a unit, said apart once — with five kept and one new the bar said
// "3/6 (50 %), ETA 5s" while the new one, the whole cost, was still to
// come (issue 79). A kept ε whose audit must be run after all becomes a
// unit then (the total grows; the count never goes back).
type calibrationBar struct {
	open        func() func(done, total int) // the bar, made at its first unit
	progress    func(done, total int)        // nil: not yet, or no bar
	done, total int
	counted     map[float64]bool // the ε the bar counts
}

// calibrationBar is the bar of spec's ε, kept those kept; it says how
// many are kept when some are.
func (spec *ForecastSpec) calibrationBar(kept map[float64]bool) *calibrationBar {
	b := &calibrationBar{open: func() func(int, int) { return spec.progress("answer calibration") }, counted: map[float64]bool{}}
	for _, eps := range spec.Epsilons {
		if !kept[eps] {
			b.total++
			b.counted[eps] = true
		}
	}
	if n := len(spec.Epsilons) - b.total; n > 0 && spec.Say != nil {
		spec.Say(fmt.Sprintf("answer calibration: %d of %d ε kept beside the certificate (restored, their loss checked on every edge); %d to calibrate and audit",
			n, len(spec.Epsilons), b.total))
	}
	return b
}

// begin is told the work on eps starts.
func (b *calibrationBar) begin(eps float64) {
	if b.counted[eps] {
		b.show()
	}
}

// auditing is told eps's audit runs: a kept ε's becomes a unit.
func (b *calibrationBar) auditing(eps float64) {
	if b.counted[eps] {
		return
	}
	b.counted[eps] = true
	b.total++
	b.show()
}

// end is told eps is done.
func (b *calibrationBar) end(eps float64) {
	if b.counted[eps] {
		b.done++
		b.show()
	}
}

// show reports the count, the bar made at its first report.
func (b *calibrationBar) show() {
	if b.progress == nil && b.open != nil {
		b.progress, b.open = b.open(), nil
	}
	if b.progress != nil {
		b.progress(b.done, b.total)
	}
}
