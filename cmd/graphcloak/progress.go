package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/answer"
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
	d, err := time.ParseDuration(os.Getenv(progressPeriodEnv))
	if err != nil || d <= 0 {
		return progressbar.LogOptions{}
	}
	return progressbar.LogOptions{Period: d, Quiet: -1}
}

// progressLog is where progress lines go on a pipe: stderr, each line
// wrapped as a JSON log record with --log-format json.
func (g *globalOptions) progressLog() io.Writer {
	if g.logFormat == "json" {
		return &jsonLines{w: g.stderr}
	}
	return g.stderr
}

// jsonLines writes each line written to it as one JSON log record
// {"time", "level": "INFO", "msg": "progress", "progress": line}.
type jsonLines struct {
	mu sync.Mutex
	w  io.Writer
}

func (j *jsonLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		b, err := json.Marshal(struct {
			Time     string `json:"time"`
			Level    string `json:"level"`
			Msg      string `json:"msg"`
			Progress string `json:"progress"`
		}{time.Now().Format(time.RFC3339Nano), "INFO", "progress", line})
		if err != nil {
			return 0, err
		}
		if _, err := j.w.Write(append(b, '\n')); err != nil {
			return 0, err
		}
	}
	return len(p), nil
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
	if e := cost.Pass(lg, c, g.firstEstimates.of(lg), longStep); e.Seconds > longStep.Seconds() {
		g.say(e.String())
	}
}

// firstEstimates keeps the answer audit's model a command's first
// estimate made on a graph, for the pass's own line (cost.Pass).
type firstEstimates struct {
	mu    sync.Mutex
	graph *laplacian.Graph
	audit answer.WorkEstimate
}

// keep remembers w, the audit's model on gr (nil, or a reference rate
// not measured, is not kept).
func (r *firstEstimates) keep(gr *laplacian.Graph, w *answer.WorkEstimate) {
	if w == nil || w.MeasureMillis == 0 || !(w.NanosPerStep > 0) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.graph, r.audit = gr, *w
}

// of is the model kept for gr (nil: none).
func (r *firstEstimates) of(gr *laplacian.Graph) *answer.WorkEstimate {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.graph == nil || r.graph != gr {
		return nil
	}
	w := r.audit
	return &w
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
	quiet, period := progressbar.DefaultLogQuiet, progressbar.DefaultLogPeriod
	if o := g.logOptions(); o.Period > 0 {
		quiet, period = o.Period, o.Period
	}
	start := time.Now()
	var mu sync.Mutex
	said, ended := false, false
	var t *time.Timer
	var beat func()
	beat = func() {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		if said {
			g.say(fmt.Sprintf("%s: %s elapsed", label, time.Since(start).Round(time.Second)))
		} else {
			said = true
			g.say(label + " …")
		}
		t = time.AfterFunc(period, beat)
	}
	mu.Lock()
	t = time.AfterFunc(quiet, beat)
	mu.Unlock()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		t.Stop()
		if said && !ended {
			g.say(fmt.Sprintf("%s: done in %s", label, time.Since(start).Round(time.Second)))
		}
		ended = true
	}
}

// serveMetrics makes serve's metrics and the steps it keeps for the page,
// and sets steps.Progress to serveProgress's.
func serveMetrics(g *globalOptions, steps *service.Steps) (*metrics.Metrics, *progressbar.Running) {
	m, running := metrics.New(), &progressbar.Running{}
	steps.Progress = serveProgress(g, running, m)
	return m, running
}

// serveProgress is the progress of serve's long steps (the answer audit,
// Δ2, write-back): drawn or logged on stderr as any command's
// (globalOptions.progress), kept in running for the operator's page, and
// exported as graphcloak_step_done/total/eta_seconds on /metrics.
func serveProgress(g *globalOptions, running *progressbar.Running, m *metrics.Metrics) func(step string) func(done, total int) {
	return func(step string) func(done, total int) {
		draw, track := g.progress(step), running.Track(step)
		return func(done, total int) {
			draw(done, total)
			track(done, total)
			if s, ok := running.State(step); ok {
				m.StepProgress(step, s.Done, s.Total, s.ETA())
			}
		}
	}
}
