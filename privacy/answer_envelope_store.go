package privacy

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
)

// exponentStore keeps one sweep's exponent and origin for every community
// and node (row o holds community o's), so that what settle computes from
// a sweep of unchanged weights — the lowering, and the masses of every
// common shift shrink tries — needs no second sweep: min_v (a_v + σ +
// ε′·hops) = σ + min_v (a_v + ε′·hops), capped at the floor, and the
// member it comes from is the same. Rows of communities the sweep left at
// the floor everywhere (unanswered ones) are marked empty and not filled.
type exponentStore struct {
	n         int
	b, origin []int32
	empty     []bool
}

// maxStoredPairs bounds n·k for the store (8 bytes a pair: 1 GiB); above
// it settle sweeps again. A variable so that tests can compare both ways.
var maxStoredPairs = 1 << 27

// newStore returns a store for env's geometry, or nil when it is too large.
func (env *envelope) newStore() *exponentStore {
	n, k := env.cg.g.N(), env.cg.k
	if n*k > maxStoredPairs {
		return nil
	}
	return &exponentStore{n: n, b: make([]int32, n*k), origin: make([]int32, n*k), empty: make([]bool, k)}
}

// record copies community o's sweep into row o (on o's worker only).
func (st *exponentStore) record(sw *envelopeSweep, o int) {
	st.empty[o] = len(sw.touched) == 0
	if st.empty[o] {
		return
	}
	row, orig := st.b[o*st.n:(o+1)*st.n], st.origin[o*st.n:(o+1)*st.n]
	floor := int32(sw.env.floor)
	for s := range row {
		row[s] = floor
	}
	for _, s := range sw.touched {
		row[s], orig[s] = sw.b[s], sw.origin[s]
	}
}

// forEachCommunity runs f(w, o) for every community o on workers of their
// own; f must only write state indexed by w or owned by o's members.
func forEachCommunity(ctx context.Context, k, workers int, f func(w, o int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				o := int(next.Add(1) - 1)
				if o >= k {
					return
				}
				if o%16 == 0 {
					if errs[w] = ctx.Err(); errs[w] != nil {
						return
					}
				}
				f(w, o)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// shifted sets mass and own as total would for the recorded weights
// shifted by σ = shift on the grid (σ ≥ 0): the same terms, summed in the
// same fixed point.
func (env *envelope) shifted(ctx context.Context, workers int, st *exponentStore, shift int64, mass, own []float64) error {
	cg := env.cg
	n, floor := st.n, env.floor
	fl := gridExp(floor)
	members := make([][]int32, cg.k)
	for v, c := range cg.part {
		members[c] = append(members[c], int32(v))
	}
	parts := make([][]uint64, workers)
	for w := range parts {
		parts[w] = make([]uint64, n)
	}
	err := forEachCommunity(ctx, cg.k, workers, func(w, o int) {
		if st.empty[o] {
			for _, v := range members[o] {
				own[v] = fl
			}
			return
		}
		row, part := st.b[o*n:(o+1)*n], parts[w]
		for s, b := range row {
			if x := int64(b) + shift; x < floor {
				part[s] += massUnits(gridExp(x) - fl)
			}
		}
		for _, v := range members[o] {
			own[v] = gridExp(min(floor, int64(row[v])+shift))
		}
	})
	for s := range mass {
		var sum uint64
		for _, part := range parts {
			sum += part[s]
		}
		mass[s] = float64(cg.k)*fl + float64(sum)/(1<<massBits)
	}
	return err
}

// lowerStored is lower for the recorded sweep (of the current weights).
func (env *envelope) lowerStored(ctx context.Context, workers int, st *exponentStore, mass, target []float64) error {
	raise := make([]int64, len(env.a))
	floor := int32(env.floor)
	n := st.n
	// A node's origin in row o is a member of o: one worker per row.
	err := forEachCommunity(ctx, env.cg.k, workers, func(_, o int) {
		if st.empty[o] {
			return
		}
		row, orig := st.b[o*n:(o+1)*n], st.origin[o*n:(o+1)*n]
		for s, b := range row {
			if b < floor && overflows(mass[s], target[s]) {
				r := int64(math.Ceil(math.Log(mass[s]/target[s])*gridOne)) + 1
				v := orig[s]
				raise[v] = max(raise[v], r)
			}
		}
	})
	for v, r := range raise {
		env.a[v] += r
	}
	return err
}
