// Command halo measures whether the answer audit's Chebyshev steps could
// be blocked in time or skip structural zeros on a graph (issue 79,
// items 2 and 5): in the kernels' Cuthill–McKee order, the bandwidth,
// and how many rows a window of W consecutive rows reaches in k steps
// (k hops: what "temporal blocking" of k steps per row window must hold
// in cache); and the share of rows a block of 32 unit columns (the
// pass's first action) is nonzero on after k steps (its k-hop ball):
//
//	go run ./bench/halo -graph file:lfr20k.csv
//	GRAPHCLOAK_DATASETS=/work/datasets go run ./bench/halo -graph gt:email-Enron
package main

import (
	"flag"
	"fmt"
	"slices"

	"github.com/graphcloak/graphcloak/bench/internal/benchgraph"
)

func main() {
	spec := flag.String("graph", "", "the graph (file:PATH, gt:NAME or a generator spec)")
	flag.Parse()
	g := benchgraph.Load(*spec)
	n := g.N()
	rowPtr, col, _ := g.CSR()
	perm := g.CuthillMcKee()
	pos := make([]int, n)
	for p, v := range perm {
		pos[v] = p
	}
	var dist []int
	for i := range n {
		for _, j := range col[rowPtr[i]:rowPtr[i+1]] {
			dist = append(dist, max(pos[i]-pos[j], pos[j]-pos[i]))
		}
	}
	slices.Sort(dist)
	q := func(f float64) int { return dist[int(f*float64(len(dist)-1))] }
	fmt.Printf("n = %d, %d nonzeros off the diagonal; Cuthill–McKee |pos(i) − pos(j)| over the edges: max %d (%.2f n), median %d, 90 %% %d, 99 %% %d\n",
		n, len(col), q(1), float64(q(1))/float64(n), q(0.5), q(0.9), q(0.99))
	for _, w := range []int{512, 2048, 8192} {
		for k := 1; k <= 4; k++ {
			total, windows := 0, 0
			for a := 0; a+w <= n; a += w {
				seeds := make([]int, w)
				for p := range seeds {
					seeds[p] = int(perm[a+p])
				}
				total += ball(rowPtr, col, n, seeds, k)
				windows++
			}
			mean := float64(total) / float64(windows)
			fmt.Printf("a window of %d rows reaches in %d steps: %.0f rows (%.1f windows, %.3f n)\n", w, k, mean, mean/float64(w), mean/float64(n))
		}
	}
	for k := 1; k <= 5; k++ {
		total, blocks := 0, 0
		for lo := 0; lo < n; lo += 32 {
			seeds := make([]int, 0, 32)
			for j := lo; j < min(n, lo+32); j++ {
				seeds = append(seeds, j)
			}
			total += ball(rowPtr, col, n, seeds, k)
			blocks++
		}
		fmt.Printf("a block of 32 unit columns after %d steps is nonzero on %.3f n rows\n", k, float64(total)/float64(blocks)/float64(n))
	}
}

// ball is the number of nodes within k hops of the seeds.
func ball(rowPtr []int64, col []int32, n int, seeds []int, k int) int {
	seen := make([]bool, n)
	front := slices.Clone(seeds)
	for _, v := range seeds {
		seen[v] = true
	}
	size := len(seeds)
	for range k {
		var next []int
		for _, v := range front {
			for _, u := range col[rowPtr[v]:rowPtr[v+1]] {
				if !seen[u] {
					seen[u] = true
					next = append(next, int(u))
				}
			}
		}
		size += len(next)
		front = next
	}
	return size
}
