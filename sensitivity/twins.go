package sensitivity

import (
	"hash/maphash"
	"slices"

	"github.com/graphcloak/graphcloak/laplacian"
)

// twins groups nodes into classes of false twins: nodes with identical
// weighted neighbour lists (hence not adjacent to each other, and of equal
// weighted degree d). For twins u, v,
//
//	L(e_u − e_v) = d(e_u − e_v),
//
// since the neighbour terms cancel, so with C = exp(−2τL), s̄ the mean of
// the unit vectors of a class T and u ∈ T,
//
//	C e_u = C s̄ + C(e_u − s̄) = C s̄ + e^{−2τd}(e_u − s̄)
//
// (e_u − s̄ is a combination of differences e_u − e_v). One column C s̄ per
// class therefore gives every member's column exactly: C_uu = (C s̄)_u +
// e^{−2τd}(1 − 1/|T|) and C_uj = (C s̄)_j for j ∈ N(u). The computed
// column is p_K(L)s̄; its error is that of p_K on the invariant subspace
// orthogonal to the twin differences, where ‖p_K − exp(−2τ·)‖ ≤ E_K still
// holds, so the per-edge error bound of the column scheme is unchanged.
// Leaves of one hub are the common case (half the columns of the AS graph).
type twins struct {
	rep  []int   // class representative of each node (the smallest index)
	next []int32 // next member of the class in a linked list, −1 at the end
	cnt  []int32 // class size, at the representative
}

func falseTwins(g *laplacian.Graph) *twins {
	n := g.N()
	t := &twins{rep: make([]int, n), next: make([]int32, n), cnt: make([]int32, n)}
	seed := maphash.MakeSeed()
	byHash := make(map[uint64][]int, n)
	last := make([]int, n)
	for v := 0; v < n; v++ {
		t.rep[v], t.next[v], t.cnt[v], last[v] = v, -1, 1, v
		cols, ws := g.Neighbors(v)
		if len(cols) == 0 {
			continue
		}
		var h maphash.Hash
		h.SetSeed(seed)
		for k, c := range cols {
			h.WriteString(string(rune(c)))
			if ws != nil {
				h.WriteString(string(rune(int32(ws[k] * 1e6))))
			}
		}
		key := h.Sum64()
		found := false
		for _, r := range byHash[key] {
			rc, rw := g.Neighbors(r)
			if slices.Equal(rc, cols) && slices.Equal(rw, ws) {
				t.rep[v] = r
				t.cnt[r]++
				t.next[last[r]] = int32(v)
				last[r] = v
				found = true
				break
			}
		}
		if !found {
			byHash[key] = append(byHash[key], v)
		}
	}
	return t
}

// singletons is the partition into classes of one (no twins used).
func singletons(n int) *twins {
	t := &twins{rep: make([]int, n), next: make([]int32, n), cnt: make([]int32, n)}
	for v := range n {
		t.rep[v], t.next[v], t.cnt[v] = v, -1, 1
	}
	return t
}

// appendClass appends the members of representative r's class to dst.
func (t *twins) appendClass(dst []int, r int) []int {
	for v := int32(r); v >= 0; v = t.next[v] {
		dst = append(dst, int(v))
	}
	return dst
}
