// Command expm-bench times exp(−τL)v with expm.Chebyshev on a random graph
// and writes the graph, v and the result for bench/expm/scipy_expm.py.
// It is run by bench/expm/run.sh; see there.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

type result struct {
	N, Edges, Degree   int
	Tau, Tol, B, Bound float64
	SetupSeconds       float64 // NewChebyshev (λ_max bound, coefficients), median
	ApplySeconds       float64 // Apply only, median
	Seconds            float64 // setup + apply, median
	Runs               int
	Workers            int
}

func main() {
	n := flag.Int("n", 100_000, "number of nodes")
	deg := flag.Float64("deg", 10, "average degree")
	tau := flag.Float64("tau", 2, "diffusion time τ")
	tol := flag.Float64("tol", 1e-10, "certified accuracy")
	seed := flag.Uint64("seed", 1, "graph and vector seed")
	runs := flag.Int("runs", 5, "timed runs (after one warm-up)")
	dir := flag.String("dir", "", "output directory (required)")
	nw := flag.Int("workers", runtime.GOMAXPROCS(0), "goroutines per sparse product")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "expm-bench: -dir is required")
		os.Exit(2)
	}
	if err := run(*n, *deg, *tau, *tol, *seed, *runs, *nw, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "expm-bench:", err)
		os.Exit(1)
	}
}

// randomEdges returns G(n, M), M = n·deg/2 distinct unit edges, from a
// PCG stream with the given seed.
func randomEdges(n int, deg float64, seed uint64) []laplacian.Edge {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := int(float64(n) * deg / 2)
	seen := make(map[uint64]bool, m)
	edges := make([]laplacian.Edge, 0, m)
	for len(edges) < m {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v {
			continue
		}
		if u > v {
			u, v = v, u
		}
		key := uint64(u)<<32 | uint64(v)
		if seen[key] {
			continue
		}
		seen[key] = true
		edges = append(edges, laplacian.Edge{U: u, V: v, Weight: 1})
	}
	return edges
}

func run(n int, deg, tau, tol float64, seed uint64, runs, nw int, dir string) error {
	edges := randomEdges(n, deg, seed)
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		return err
	}
	if err := writeEdges(filepath.Join(dir, "edges.csv"), edges); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	if err := writeVec(filepath.Join(dir, "v.txt"), v); err != nil {
		return err
	}
	op := g.Laplacian()
	y := make([]float64, n)
	var setup, apply, total []float64
	var c *expm.Chebyshev
	for r := 0; r <= runs; r++ {
		t0 := time.Now()
		c, err = expm.NewChebyshev(op, tau, tol)
		if err != nil {
			return err
		}
		c = c.WithWorkers(nw)
		t1 := time.Now()
		c.Apply(y, v, 1)
		t2 := time.Now()
		if r == 0 {
			continue // warm-up
		}
		setup = append(setup, t1.Sub(t0).Seconds())
		apply = append(apply, t2.Sub(t1).Seconds())
		total = append(total, t2.Sub(t0).Seconds())
	}
	if err := writeVec(filepath.Join(dir, "go_y.txt"), y); err != nil {
		return err
	}
	vn := 0.0
	for _, x := range v {
		vn += x * x
	}
	res := result{N: n, Edges: g.NumEdges(), Degree: c.Degree(), Tau: tau, Tol: tol, B: c.B(),
		Bound: c.ErrorBound() * math.Sqrt(vn), SetupSeconds: median(setup), ApplySeconds: median(apply),
		Seconds: median(total), Runs: runs, Workers: nw}
	f, err := os.Create(filepath.Join(dir, "go.json"))
	if err != nil {
		return err
	}
	defer f.Close()
	return json.NewEncoder(f).Encode(res)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func writeEdges(path string, edges []laplacian.Edge) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, e := range edges {
		fmt.Fprintf(w, "%d,%d\n", e.U, e.V)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeVec(path string, v []float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, x := range v {
		fmt.Fprintf(w, "%.17g\n", x)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
