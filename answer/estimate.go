package answer

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// WorkEstimate is how long a long step is expected to take: its cost
// model's steps times this machine's measured time a step
// (expm.MeasureStepRate at the pass's width, all cores at once, under the
// present load).
type WorkEstimate struct {
	Step  string `json:"step"`
	Nodes int    `json:"nodes"`
	Edges int    `json:"edges"`
	// Sources the answer audit will compute (its shard, less what a
	// checkpoint holds, plus the refit sample).
	Sources int `json:"sources"`
	// Correlated of the sources (the refit sample's not counted) are
	// modelled to need the second action (recovery.PassCost).
	Correlated int `json:"correlated"`
	// ChebyshevDegree is K of the action (0: dense).
	ChebyshevDegree int     `json:"chebyshevDegree"`
	Steps           float64 `json:"steps"`
	// NanosPerStep is the measured wall time of a step with Workers
	// goroutines at once.
	NanosPerStep float64 `json:"nanosPerStep"`
	Workers      int     `json:"workers"`
	Seconds      float64 `json:"seconds"`
	// MeasureMillis is what measuring the rate took.
	MeasureMillis int64 `json:"measureMillis"`
}

// referenceNanosPerStep is the step time of the reference 2-core machine
// under load (docs/sharding.md: 0.37–0.40 ns a step a core in the AVX2
// kernel, about twice that under load), for a first guess before any
// measurement.
const referenceNanosPerStep = 0.4

// EstimateAudit returns the estimate of the answer audit's pass on g at
// τ with opt (its shard, less opt.Checkpoint's blocks): PassEstimate of
// recovery.EstimatePass.
func EstimateAudit(g *laplacian.Graph, tau float64, opt recovery.CertifierOptions, rate *expm.StepRate, quick time.Duration) (WorkEstimate, error) {
	c, err := recovery.EstimatePass(g, tau, opt)
	if err != nil {
		return WorkEstimate{}, err
	}
	return PassEstimate(g, c, rate, quick), nil
}

// PassEstimate prices a pass of cost c on g. rate, when non-nil, is a
// step rate measured before; otherwise one is measured on g (about 0.3 s)
// when the pass would take more than quick/4 at the reference rate on
// every core (quick 0: always), and the reference rate is used below
// that (a pass that short is not worth an estimate).
func PassEstimate(g *laplacian.Graph, c recovery.PassCost, rate *expm.StepRate, quick time.Duration) WorkEstimate {
	e := WorkEstimate{Step: "answer audit", Nodes: c.Nodes, Edges: c.Edges, Sources: c.Sources, Correlated: c.Correlated, ChebyshevDegree: c.Degree, Steps: c.Steps}
	workers := max(1, runtime.GOMAXPROCS(0))
	if rate == nil && c.Steps*referenceNanosPerStep*1e-9/float64(workers) >= quick.Seconds()/4 {
		r := expm.MeasureStepRate(g, 0, c.ApplyWidth)
		rate = &r
	}
	if rate == nil {
		e.NanosPerStep, e.Workers = referenceNanosPerStep/float64(workers), workers
	} else {
		e.NanosPerStep, e.Workers, e.MeasureMillis = rate.Seconds*1e9, rate.Workers, rate.Elapsed.Milliseconds()
	}
	e.Seconds = e.Steps * e.NanosPerStep * 1e-9
	return e
}

// String is the estimate line printed before the step: "estimated 3 min
// 20 s for the answer audit (n=20000, |E|=99000, 20256 sources, K=76,
// 9.2e+11 steps at 0.21 ns a step measured on 2 cores)".
func (e WorkEstimate) String() string {
	how := fmt.Sprintf("at %.2g ns a step measured on %d cores", e.NanosPerStep, e.Workers)
	if e.MeasureMillis == 0 {
		how = fmt.Sprintf("at the reference %.2g ns a step on %d cores", e.NanosPerStep, e.Workers)
	}
	return fmt.Sprintf("estimated %s for the %s (n=%d, |E|=%d, %d sources, K=%d, %.2g steps %s)",
		HumanDuration(time.Duration(e.Seconds*float64(time.Second))), e.Step, e.Nodes, e.Edges, e.Sources, e.ChebyshevDegree, e.Steps, how)
}

// HumanDuration renders d for a reader: "0.4 s", "45 s", "3 min 20 s",
// "2 h 5 min".
func HumanDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 10:
		return fmt.Sprintf("%.1f s", s)
	case s < 60:
		return fmt.Sprintf("%.0f s", s)
	case s < 3600:
		m := math.Floor(s / 60)
		return fmt.Sprintf("%.0f min %.0f s", m, math.Floor(s-60*m))
	}
	h := math.Floor(s / 3600)
	return fmt.Sprintf("%.0f h %.0f min", h, math.Floor((s-3600*h)/60))
}
