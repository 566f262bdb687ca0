package answer

import (
	"context"
	"math"
	"slices"

	"github.com/graphcloak/graphcloak/privacy"
)

// auditByAnswer is auditEdges where every node's log-probabilities do not
// fit in memory (logProbabilitiesOf): one answer o at a time, its
// probability at every node (privacy.ProbabilityColumns), each edge's
// log-ratio at o — K passes over the edges, where a search per node and
// edge end cost e-mail Enron minutes an ε. WorstLoss, the own terms and
// Accuracy are auditEdges' to the bit (a maximum and the same terms
// summed in the same order); In90's sums run in another order, of the
// probabilities themselves (not exp of their logs: their last bits may
// differ). ok is false, and nothing set, where the columns
// are not had in one pass.
func (m *Model) auditByAnswer(ctx context.Context, cal privacy.AnswerCalibration, a *Audit, workers int) (ok bool, err error) {
	in, sizes, err := m.top90Sets(ctx, cal)
	if err != nil {
		return false, err
	}
	n, k := m.Graph.N(), m.Geometry.K()
	members := make([][]int32, k)
	for s, c := range m.community {
		if c >= 0 {
			members[c] = append(members[c], int32(s))
		}
	}
	worst, rate, size := make([]float64, workers), make([]float64, workers), make([]float64, workers)
	logs := make([][]float64, workers)
	own := make([]float64, n)
	rowPtr, col, _ := m.Graph.CSR()
	ok, err = cal.ProbabilityColumns(ctx, m.Geometry, workers, func(w, o int, p []float64) {
		if logs[w] == nil {
			logs[w] = make([]float64, len(p))
		}
		l := logs[w]
		for v, x := range p {
			l[v] = math.Log(x)
		}
		for _, s := range members[o] {
			own[s] = math.Exp(l[m.node(int(s))])
		}
		for s := range n {
			ls := l[m.node(s)]
			for e := rowPtr[s]; e < rowPtr[s+1]; e++ {
				if t := int(col[e]); t > s && m.node(t) != m.node(s) {
					worst[w] = max(worst[w], math.Abs(ls-l[m.node(t)]))
				}
			}
			q := p[m.node(s)]
			if c := m.community[s]; c >= 0 && in[o][c] {
				rate[w] += q
			}
			size[w] += q * sizes[o]
		}
	})
	if !ok || err != nil {
		return false, err
	}
	a.own, a.WorstLoss, a.Accuracy = own, slices.Max(worst), m.accuracy(own, workers)
	for w := range rate {
		a.In90Rate += rate[w] / float64(n)
		a.In90Size += size[w] / float64(n)
	}
	return true, nil
}
