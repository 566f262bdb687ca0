package laplacian

import (
	"fmt"
	"math"
	"strconv"
)

// MaxGeneratedEdges bounds the edge count of generated graphs (for SBM, the
// expected count): beyond it a generator returns a *SizeError instead of
// trying to allocate tens of GiB.
const MaxGeneratedEdges = 1 << 28

// SizeError reports a generator parameter outside its valid range.
type SizeError struct {
	Generator string // "path", "sbm", …
	Param     string // "n", "rows", "sizes", "edges", …
	Value     float64
	Min, Max  float64 // the valid range (inclusive)
}

func (e *SizeError) Error() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	if !(e.Value >= e.Min) {
		return fmt.Sprintf("laplacian: %s: %s = %s, need at least %s", e.Generator, e.Param, f(e.Value), f(e.Min))
	}
	return fmt.Sprintf("laplacian: %s: %s = %s exceeds the limit %s", e.Generator, e.Param, f(e.Value), f(e.Max))
}

func checkSize(gen, param string, v, lo, hi float64) error {
	if !(v >= lo && v <= hi) {
		return &SizeError{Generator: gen, Param: param, Value: v, Min: lo, Max: hi}
	}
	return nil
}

// checkGen validates the size parameters of the simple generators.
func checkGen(gen string, n int) error {
	minN := map[string]int{"path": 2, "cycle": 3, "complete": 2, "star": 2}[gen]
	if err := checkSize(gen, "n", float64(n), float64(minN), math.MaxInt32); err != nil {
		return err
	}
	m := float64(n)
	if gen == "complete" {
		m = m * (m - 1) / 2
	}
	return checkSize(gen, "edges", m, 0, MaxGeneratedEdges)
}

func checkGrid(rows, cols int) error {
	if err := checkSize("grid", "rows", float64(rows), 1, math.MaxInt32); err != nil {
		return err
	}
	if err := checkSize("grid", "cols", float64(cols), 1, math.MaxInt32); err != nil {
		return err
	}
	n := float64(rows) * float64(cols)
	if err := checkSize("grid", "rows×cols", n, 2, math.MaxInt32); err != nil {
		return err
	}
	return checkSize("grid", "edges", 2*n, 0, MaxGeneratedEdges)
}

// Path returns the path graph P_n: nodes 0..n-1, edges (i, i+1), n−1 edges.
// It needs n ≥ 2.
func Path(n int) (*Graph, error) {
	if err := checkGen("path", n); err != nil {
		return nil, err
	}
	edges := make([]Edge, 0, n-1)
	for i := 0; i+1 < n; i++ {
		edges = append(edges, Edge{int32(i), int32(i + 1), 1})
	}
	return FromEdges(n, nil, edges, Options{})
}

// Cycle returns the cycle graph C_n: the path plus the edge (n−1, 0), n
// edges. It needs n ≥ 3.
func Cycle(n int) (*Graph, error) {
	if err := checkGen("cycle", n); err != nil {
		return nil, err
	}
	edges := make([]Edge, 0, n)
	for i := 0; i < n; i++ {
		edges = append(edges, Edge{int32(i), int32((i + 1) % n), 1})
	}
	return FromEdges(n, nil, edges, Options{})
}

// Complete returns the complete graph K_n with n(n−1)/2 edges. It needs n ≥ 2.
func Complete(n int) (*Graph, error) {
	if err := checkGen("complete", n); err != nil {
		return nil, err
	}
	edges := make([]Edge, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			edges = append(edges, Edge{int32(i), int32(j), 1})
		}
	}
	return FromEdges(n, nil, edges, Options{})
}

// Star returns the star graph on n nodes in total: hub 0 joined to the
// leaves 1..n−1 (n−1 edges). It needs n ≥ 2.
func Star(n int) (*Graph, error) {
	if err := checkGen("star", n); err != nil {
		return nil, err
	}
	edges := make([]Edge, 0, n-1)
	for i := 1; i < n; i++ {
		edges = append(edges, Edge{0, int32(i), 1})
	}
	return FromEdges(n, nil, edges, Options{})
}

// Grid returns the rows×cols grid graph (4-neighbour lattice): node
// r·cols + c is joined to its right and lower neighbours, giving
// 2·rows·cols − rows − cols edges. It needs rows, cols ≥ 1 and at least
// two nodes.
func Grid(rows, cols int) (*Graph, error) {
	if err := checkGrid(rows, cols); err != nil {
		return nil, err
	}
	n := rows * cols
	edges := make([]Edge, 0, 2*n-rows-cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			i := int32(r*cols + c)
			if c+1 < cols {
				edges = append(edges, Edge{i, i + 1, 1})
			}
			if r+1 < rows {
				edges = append(edges, Edge{i, i + int32(cols), 1})
			}
		}
	}
	return FromEdges(n, nil, edges, Options{})
}
