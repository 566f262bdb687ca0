package cost

import (
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// Pass is the answer audit's estimate for a pass of cost c about to run
// on g, for the pass's own line. first is the command's first line's
// model of the audit on g (auditModel; nil: none): for the very pass it
// modelled it is first itself, so the two lines say one figure from one
// model call (on e-mail Enron, two step rates measured 0.4 s apart under
// load made "audit 23 min 50 s" then "1 h 11 min"); a pass of another
// cost (a resumed one: fewer sources) is priced at first's measured step
// rate. Without first it is answer.PassEstimate (its rate measured when
// the pass is over quick/4 at the reference rate).
func Pass(g *laplacian.Graph, c recovery.PassCost, first *answer.WorkEstimate, quick time.Duration) answer.WorkEstimate {
	if first == nil {
		return answer.PassEstimate(g, c, nil, quick)
	}
	if first.Nodes == c.Nodes && first.Edges == c.Edges && first.Sources == c.Sources && first.ChebyshevDegree == c.Degree && first.Steps == c.Steps {
		return *first
	}
	var rate *expm.StepRate
	if first.MeasureMillis > 0 && first.NanosPerStep > 0 {
		rate = &expm.StepRate{Seconds: first.NanosPerStep * 1e-9, Workers: first.Workers, Elapsed: time.Duration(first.MeasureMillis) * time.Millisecond}
	}
	return answer.PassEstimate(g, c, rate, quick)
}

// FirstEstimates keeps the answer audit's model a command's first
// estimate made on a graph, for the pass's own line (Pass). Its zero
// value is ready; it is safe for concurrent use.
type FirstEstimates struct {
	mu    sync.Mutex
	graph *laplacian.Graph
	audit answer.WorkEstimate
}

// Keep remembers w, the audit's model on g (nil, or a reference rate not
// measured, is not kept).
func (r *FirstEstimates) Keep(g *laplacian.Graph, w *answer.WorkEstimate) {
	if w == nil || w.MeasureMillis == 0 || !(w.NanosPerStep > 0) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.graph, r.audit = g, *w
}

// Of is the model kept for g (nil: none).
func (r *FirstEstimates) Of(g *laplacian.Graph) *answer.WorkEstimate {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.graph == nil || r.graph != g {
		return nil
	}
	w := r.audit
	return &w
}
