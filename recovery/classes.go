package recovery

import (
	"context"
	"math"
	"sync"
)

// SourceClasses partitions the nodes into classes of sources that no
// reading inside the Certifier's model can tell apart, and records the
// audit that found them: the real Fit run on the (computed) noiseless
// readings of every source.
type SourceClasses struct {
	// Class[j] is node j's class, numbered by lowest member (0 … Count−1).
	Class []int
	Count int
	// Merged is the number of nodes in classes of two or more.
	Merged int
	// SourcesChecked is how many sources' readings were fitted; Refused
	// how many of them Fit refused, Misplaced how many it fitted to a node
	// outside the source's class (both 0 for a sound certificate).
	SourcesChecked, Refused, Misplaced int
	// MergeCos is the cosine above which two directions are merged.
	MergeCos float64
}

// Classes runs Fit on the readings â_j of every node j (3 actions per
// node in blocks, parallel) and merges every pair j, k whose directions
// are within asin(T) + θ_acc (Certifier): from one fit's cosines,
// cos(u_j, u_k) for every k comes for free, so the screening is
// exhaustive (no candidate list). Cancelled by ctx.
func (c *Certifier) Classes(ctx context.Context) (*SourceClasses, error) {
	n := c.g.N()
	eMax := 2*c.precision + c.colErr
	thetaT := math.Asin(c.tol)
	thetaAcc := math.Acos(math.Max(-1, math.Sqrt(1-c.tol*c.tol)-2*eMax))
	sc := &SourceClasses{MergeCos: math.Cos(thetaT + thetaAcc)}
	uf := newUnionFind(n)
	fitted := make([]int, n)
	var mu sync.Mutex
	err := forBlocks(ctx, n, func(lo, b int, cols []float64) {
		fits, cos, errs := c.fitBlock(cols, b)
		var pairs [][2]int
		refused := 0
		for k := 0; k < b; k++ {
			j := lo + k
			fitted[j] = -1
			if errs[k] != nil || fits[k].Cos < c.acceptCos(fits[k].Err) {
				refused++
				continue
			}
			fitted[j] = fits[k].Node
			thr := sc.MergeCos - fits[k].Err
			for i := 0; i < n; i++ {
				if i != j && cos[i*b+k] >= thr {
					pairs = append(pairs, [2]int{j, i})
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		sc.Refused += refused
		sc.SourcesChecked += b
		for _, p := range pairs {
			uf.union(p[0], p[1])
		}
	}, c.columns)
	if err != nil {
		return nil, err
	}
	sc.Class, sc.Count = uf.labels()
	size := make([]int, sc.Count)
	for _, q := range sc.Class {
		size[q]++
	}
	for j, q := range sc.Class {
		if size[q] > 1 {
			sc.Merged++
		}
		if f := fitted[j]; f >= 0 && sc.Class[f] != q {
			sc.Misplaced++
		}
	}
	return sc, nil
}

type unionFind struct{ parent []int }

func newUnionFind(n int) *unionFind {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return &unionFind{p}
}

func (u *unionFind) find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

func (u *unionFind) union(i, j int) {
	a, b := u.find(i), u.find(j)
	if a < b {
		u.parent[b] = a
	} else if b < a {
		u.parent[a] = b
	}
}

// labels numbers the sets by their lowest member.
func (u *unionFind) labels() ([]int, int) {
	id := map[int]int{}
	out := make([]int, len(u.parent))
	for i := range out {
		r := u.find(i)
		q, ok := id[r]
		if !ok {
			q = len(id)
			id[r] = q
		}
		out[i] = q
	}
	return out, len(id)
}
