package progressbar

import "sync"

// LogStages adapts a streaming read's (stage, done) callback to log lines
// on a pipe: a counter per stage (the total is unknown while streaming),
// each stage reported through its own callback from newStage (Log, with
// no total). Call the returned end after the read. A stage ends when the
// next begins, and every stage at end (a report of total −1, Log): a
// finished stage is not reported again.
func LogStages(newStage func(stage string) func(done, total int)) (progress func(stage string, done int), end func()) {
	type step struct {
		report func(done, total int)
		done   int
	}
	var mu sync.Mutex
	stages := map[string]*step{}
	var current *step
	endCurrent := func() { // mu held
		if current != nil {
			current.report(current.done, -1)
		}
	}
	return func(stage string, done int) {
			mu.Lock()
			defer mu.Unlock()
			s := stages[stage]
			if s == nil {
				endCurrent()
				s = &step{report: newStage(stage)}
				stages[stage], current = s, s
			}
			s.done = done
			s.report(done, 0)
		}, func() {
			mu.Lock()
			defer mu.Unlock()
			for _, s := range stages {
				s.report(s.done, -1)
			}
		}
}

// ByStage adapts a write's (stage, done, total) callback to one progress
// callback a stage, made by newStage at the stage's first report.
func ByStage(newStage func(stage string) func(done, total int)) func(stage string, done, total int) {
	bars := map[string]func(done, total int){}
	return func(stage string, done, total int) {
		if bars[stage] == nil {
			bars[stage] = newStage(stage)
		}
		bars[stage](done, total)
	}
}
