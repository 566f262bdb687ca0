package sensitivity

import "sync"

// endingProgress wraps a step's progress callback so that its work's end closes
// it: end(true) reports the step done (its last total done, when a
// report came: a step whose remaining units were proven unneeded, as Δ2
// pruned at block 14 of 97, is done all the same), end(false) ends it
// without a total (a report of total < 0: stopped, failed), and nothing
// reaches report after end. Without it the last report stands — a log
// goes on from its timer with a growing ETA, a bar and serve's page stay
// at "14/97". A nil report gives nil and an end that does nothing; a step
// that reported nothing is ended silently.
func endingProgress(report func(done, total int)) (wrapped func(done, total int), end func(ok bool)) {
	if report == nil {
		return nil, func(bool) {}
	}
	var mu sync.Mutex
	reported, ended := false, false
	lastDone, lastTotal := 0, 0
	wrapped = func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		reported, lastDone, lastTotal = true, done, total
		report(done, total)
	}
	end = func(ok bool) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		ended = true
		switch {
		case !reported, lastTotal > 0 && lastDone >= lastTotal, lastTotal < 0:
		case ok && lastTotal > 0:
			report(lastTotal, lastTotal)
		default:
			report(lastDone, -1)
		}
	}
	return wrapped, end
}
