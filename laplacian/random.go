package laplacian

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// PreferentialAttachment samples a Barabási–Albert graph: it starts from
// the complete graph on nodes 0..m and adds nodes m+1..n−1 one at a time,
// each joined to m distinct earlier nodes chosen with probability
// proportional to their current degree. The result is simple, connected and
// unweighted, with m(m+1)/2 + (n−m−1)·m edges and a power-law degree tail
// (hubs), the shape of social and Internet graphs (A.-L. Barabási and
// R. Albert, Science 286, 509, 1999).
//
// Sampling is O(n·m) expected time: degree-proportional choice picks a
// uniform entry of the list of all edge endpoints so far (V. Batagelj and
// U. Brandes, Phys. Rev. E 71, 036113, 2005, Algorithm 5); a repeated
// target is redrawn, which costs O(1) expected draws while m is small next
// to the endpoint count. It needs 1 ≤ m < n. The stream is math/rand/v2's
// PCG seeded with (seed, 0xba): the same arguments give the same graph.
// This is simulation randomness, never privacy noise.
func PreferentialAttachment(n, m int, seed uint64) (*Graph, error) {
	if err := checkPA(n, m); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0xba))
	total := paEdges(n, m)
	edges := make([]Edge, 0, total)
	ends := make([]int32, 0, 2*total)
	for i := 0; i <= m; i++ {
		for j := 0; j < i; j++ {
			edges = append(edges, Edge{int32(j), int32(i), 1})
			ends = append(ends, int32(i), int32(j))
		}
	}
	targets := make([]int32, 0, m)
	for v := m + 1; v < n; v++ {
		targets = targets[:0]
		for len(targets) < m {
			t := ends[rng.IntN(len(ends))]
			dup := false
			for _, u := range targets {
				dup = dup || u == t
			}
			if !dup {
				targets = append(targets, t)
			}
		}
		for _, t := range targets {
			edges = append(edges, Edge{t, int32(v), 1})
			ends = append(ends, t, int32(v))
		}
	}
	g, err := FromEdges(n, nil, edges, Options{Duplicates: DuplicatesReject})
	if err != nil {
		return nil, fmt.Errorf("laplacian: pa: internal error: %w", err)
	}
	return g, nil
}

func paEdges(n, m int) int { return m*(m+1)/2 + (n-m-1)*m }

func checkPA(n, m int) error {
	if err := checkSize("pa", "m", float64(m), 1, math.MaxInt32); err != nil {
		return err
	}
	if err := checkSize("pa", "n", float64(n), float64(m)+1, math.MaxInt32); err != nil {
		return err
	}
	return checkSize("pa", "edges", float64(m)*(float64(m)+1)/2+(float64(n)-float64(m)-1)*float64(m), 0, MaxGeneratedEdges)
}

// RandomGeometric samples a random geometric graph: n points uniform in
// the unit square [0,1)², two nodes joined when their Euclidean distance is
// at most radius. Expected degree ≈ nπr² away from the border (choose
// r = √(k/(πn)) for mean degree about k). The graph is unweighted; it has
// no hubs, is spatially local, and may be disconnected at small radius.
// Node i's position is returned as points[i] = (x, y).
//
// It costs O(n + m) expected time: points are bucketed in a grid of cells
// of side ≥ radius, and each point is compared only with the points in its
// own and the 8 surrounding cells (J. L. Bentley, D. F. Stanat and
// E. H. Williams, "The complexity of finding fixed-radius near neighbors",
// Inf. Process. Lett. 6, 1977). It needs n ≥ 2 and 0 < radius ≤ √2. The
// stream is math/rand/v2's PCG seeded with (seed, 0x66): the same arguments
// give the same graph. This is simulation randomness, never privacy noise.
func RandomGeometric(n int, radius float64, seed uint64) (*Graph, [][2]float64, error) {
	if err := checkRGG(n, radius); err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x66))
	pts := make([][2]float64, n)
	for i := range pts {
		pts[i] = [2]float64{rng.Float64(), rng.Float64()}
	}
	cells := max(1, min(int(1/radius), int(math.Sqrt(float64(n)))+1))
	cellOf := func(p [2]float64) (int, int) {
		return min(int(p[0]*float64(cells)), cells-1), min(int(p[1]*float64(cells)), cells-1)
	}
	// Counting sort of the points by cell: start[c] .. start[c+1] in order.
	start := make([]int32, cells*cells+1)
	for _, p := range pts {
		cx, cy := cellOf(p)
		start[cy*cells+cx+1]++
	}
	for c := 1; c < len(start); c++ {
		start[c] += start[c-1]
	}
	order := make([]int32, n)
	fill := append([]int32(nil), start[:cells*cells]...)
	for i, p := range pts {
		cx, cy := cellOf(p)
		c := cy*cells + cx
		order[fill[c]] = int32(i)
		fill[c]++
	}
	r2 := radius * radius
	exp := float64(n) * (float64(n) - 1) / 2 * math.Min(1, math.Pi*r2)
	edges := make([]Edge, 0, int(math.Min(exp*1.05+64, MaxGeneratedEdges)))
	for i, p := range pts {
		cx, cy := cellOf(p)
		edges = appendNearEdges(edges, pts, i, cx, cy, cells, order, start, r2)
		if len(edges) > MaxGeneratedEdges {
			return nil, nil, &SizeError{Generator: "rgg", Param: "edges", Value: float64(len(edges)), Min: 0, Max: MaxGeneratedEdges}
		}
	}
	g, err := FromEdges(n, nil, edges, Options{Duplicates: DuplicatesReject})
	if err != nil {
		return nil, nil, fmt.Errorf("laplacian: rgg: internal error: %w", err)
	}
	return g, pts, nil
}

// appendNearEdges appends the edges (i, j), j > i, from point i (in cell
// (cx, cy)) to the points j within √r2 in the 3×3 cells around it; the
// points of cell c are order[start[c]:start[c+1]].
func appendNearEdges(edges []Edge, pts [][2]float64, i, cx, cy, cells int, order, start []int32, r2 float64) []Edge {
	p := pts[i]
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			x, y := cx+dx, cy+dy
			if x < 0 || y < 0 || x >= cells || y >= cells {
				continue
			}
			c := y*cells + x
			for _, j := range order[start[c]:start[c+1]] {
				if int(j) <= i {
					continue
				}
				ddx, ddy := pts[j][0]-p[0], pts[j][1]-p[1]
				if ddx*ddx+ddy*ddy <= r2 {
					edges = append(edges, Edge{int32(i), j, 1})
				}
			}
		}
	}
	return edges
}

func checkRGG(n int, radius float64) error {
	if err := checkSize("rgg", "n", float64(n), 2, math.MaxInt32); err != nil {
		return err
	}
	if err := checkSize("rgg", "radius", radius, math.SmallestNonzeroFloat64, math.Sqrt2); err != nil {
		return err
	}
	exp := float64(n) * (float64(n) - 1) / 2 * math.Min(1, math.Pi*radius*radius)
	return checkSize("rgg", "edges", exp, 0, MaxGeneratedEdges)
}
