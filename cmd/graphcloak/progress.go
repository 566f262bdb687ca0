package main

import (
	"io"
	"os"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/service"
)

// longStep is how long a step is modelled to run before its estimate is
// printed (job.LongStep).
const longStep = job.LongStep

// progressPeriodEnv sets the period of progress lines on a pipe (a
// duration, 25 s by default: progressbar.DefaultLogPeriod) and how long a step runs before its first
// line: tests set it small to see the lines of a quick step.
const progressPeriodEnv = "GRAPHCLOAK_PROGRESS_PERIOD"

// progress returns a callback reporting a long step's progress (pull, Δ2,
// the answer audit, forecasts, write-back) on stderr: a bar when stderr
// is a terminal (progressbar.Bar), log lines otherwise (progressbar.Log:
// a line once the step has run 5 s, then at least every 25 s with
// done/total and ETA, and one when it is done), nothing with --quiet.
func (g *globalOptions) progress(label string) func(done, total int) {
	switch {
	case g.terminal:
		return progressbar.Bar(g.stderr, label)
	case g.quiet:
		return func(int, int) {}
	}
	return progressbar.Log(g.progressLog(), label, g.logOptions())
}

// logOptions are progressbar.Log's options: the defaults, or both the
// period and the quiet start set by GRAPHCLOAK_PROGRESS_PERIOD.
func (g *globalOptions) logOptions() progressbar.LogOptions {
	return progressbar.PeriodOptions(os.Getenv(progressPeriodEnv))
}

// progressLog is where progress lines go on a pipe: stderr, each line
// wrapped as a JSON log record with --log-format json.
func (g *globalOptions) progressLog() io.Writer {
	if g.logFormat == "json" {
		return &progressbar.JSONLines{W: g.stderr}
	}
	return g.stderr
}

// say prints one line about the work ahead (an estimate, a phase) on
// stderr unless --quiet, as a JSON log record with --log-format json.
func (g *globalOptions) say(line string) {
	if g.quiet {
		return
	}
	io.WriteString(g.progressLog(), line+"\n")
}

// passStarted prints the estimate of an answer audit's pass about to run
// on lg (cost.Pass: the command's first line's model of this pass when it
// made one — one figure for one step, from one model call — else its cost
// model at the step rate measured on lg) when it is modelled to take more
// than longStep.
func (g *globalOptions) passStarted(lg *laplacian.Graph, c recovery.PassCost) {
	if g.quiet {
		return
	}
	if e := cost.Pass(lg, c, g.firstEstimates.Of(lg), longStep); e.Seconds > longStep.Seconds() {
		g.say(e.String())
	}
}

// phase reports a step that has no count to show (community detection,
// loading a file): when it is still running after the quiet time of a
// progress log (5 s, or GRAPHCLOAK_PROGRESS_PERIOD) a line "label …" is
// printed, then "label: 1m0s elapsed" every period of a progress log
// (25 s, or GRAPHCLOAK_PROGRESS_PERIOD) while it runs, and, when the
// returned end is called, "label: done in 12s". A quick step prints
// nothing; --quiet prints nothing.
func (g *globalOptions) phase(label string) (end func()) {
	if g.quiet {
		return func() {}
	}
	o := g.logOptions()
	return progressbar.Phase(g.say, label, o.Period, o.Period)
}

// serveMetrics makes serve's metrics and the steps it keeps for the page,
// and sets steps.Progress to serveProgress's.
func serveMetrics(g *globalOptions, steps *service.Steps) (*metrics.Metrics, *progressbar.Running) {
	m, running := metrics.New(), &progressbar.Running{}
	steps.Progress = serveProgress(g, running, m)
	return m, running
}

// serveProgress is the progress of serve's long steps
// (service.StepProgress), drawn or logged on stderr as any command's
// (globalOptions.progress).
func serveProgress(g *globalOptions, running *progressbar.Running, m *metrics.Metrics) func(step string) func(done, total int) {
	return service.StepProgress(g.progress, running, m)
}
