package sensitivity

import (
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
)

// LineReport is Line(n, m, T, alpha) as its Report: timed, with n, m and
// T, the maximising pair named by grid indices j (1-based).
func LineReport(n, m int, T, alpha float64) (Report, error) {
	start := time.Now()
	s, err := Line(n, m, T, alpha)
	if err != nil {
		return Report{}, err
	}
	r := NewReport(s, time.Since(start).Seconds(), func(i int) any { return i + 1 })
	r.N, r.M, r.Tau = &n, &m, &T
	return r, nil
}

// NewPlanReport is the dry run of Graph on g (named graph) at tau and
// alpha with opt: the method ChooseMethod picks and its modelled cost.
// baseBytes, the caller's resident memory so far (binary, runtime, the
// loaded graph), is added to the computation's modelled memory.
func NewPlanReport(g *laplacian.Graph, graph string, tau, alpha float64, opt Options, baseBytes int64) PlanReport {
	start := time.Now()
	p := ChooseMethod(g, tau, opt)
	comps, _ := g.Components()
	return PlanReport{DryRun: true, Graph: graph, Nodes: g.N(), Edges: g.NumEdges(), Components: comps,
		Tau: tau, Alpha: alpha, Method: p.Name(), SlowModesFirst: p.SlowModesFirst, SecondsEstimate: p.Seconds, BytesEstimate: p.Bytes + baseBytes,
		Seconds: time.Since(start).Seconds(), TimeBudgetSeconds: opt.TimeBudget.Seconds()}
}
