package privacy

import (
	"context"
	"math"
	"slices"
)

// ProbabilityColumns calls f(w, o, col) for every answer o, on up to
// workers goroutines (w numbers the caller's, f must only write state
// indexed by it): col[v] = ProbabilitiesAt(cg, v)[o] for every node v, the
// same numbers to the bit (col is reused once f returns). It holds n
// numbers a worker where ProbabilitiesEverywhere holds n·k: an audit of a
// graph whose table would not fit runs its edges one answer at a time
// instead of a search per node and edge end. ok is false, and f never
// called, where the columns are not had in one pass: an envelope with a
// weight above 1, or a distance table over its bound.
func (cal AnswerCalibration) ProbabilityColumns(ctx context.Context, cg *CommunityGeometry, workers int, f func(w, o int, col []float64)) (ok bool, err error) {
	n := cg.N()
	workers = max(1, min(workers, cg.k))
	cols := make([][]float64, workers)
	for w := range cols {
		cols[w] = make([]float64, n)
	}
	if env := cal.envelope; env != nil {
		if slices.ContainsFunc(env.a, func(a int64) bool { return a < 0 }) {
			return false, nil
		}
		// As allProbabilities: the spread's exponent over Y, the abstain
		// weight added at the fallback.
		return true, env.forCommunities(ctx, workers, func(w int, sw *envelopeSweep, o int) {
			col := cols[w]
			for s, b := range sw.b {
				col[s] = gridExp(int64(b)) / env.y[s]
			}
			if o == env.fallback {
				for s := range col {
					col[s] += gridExp(env.bu[s]) / env.y[s]
				}
			}
			f(w, o, col)
		})
	}
	table, err := cg.distanceTable(ctx)
	if err != nil || table == nil {
		return false, err
	}
	// As AnswerProbabilities: each term, then over Z summed in answer order.
	k := cg.k
	z := make([]float64, n)
	for s := range z {
		for _, d := range table[s*k : (s+1)*k] {
			z[s] += math.Exp(-cal.Scale * min(float64(d), cal.Cap))
		}
	}
	return true, forEachCommunity(ctx, k, workers, func(w, o int) {
		col := cols[w]
		for s := range col {
			col[s] = math.Exp(-cal.Scale*min(float64(table[s*k+o]), cal.Cap)) / z[s]
		}
		f(w, o, col)
	})
}
