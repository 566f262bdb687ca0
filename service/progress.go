package service

import (
	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/metrics"
)

// StepProgress is the progress of serve's long steps (the answer audit,
// Δ2, write-back), for Steps.Progress: each step's reports go to draw's
// callback (drawn or logged, as any command's progress), are kept in
// running for the operator's page, and are exported on m as
// graphcloak_step_done/total/eta_seconds.
func StepProgress(draw func(step string) func(done, total int), running *progressbar.Running, m *metrics.Metrics) func(step string) func(done, total int) {
	return func(step string) func(done, total int) {
		d, track := draw(step), running.Track(step)
		return func(done, total int) {
			d(done, total)
			track(done, total)
			if s, ok := running.State(step); ok {
				m.StepProgress(step, s.Done, s.Total, s.ETA())
			}
		}
	}
}
