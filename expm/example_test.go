package expm_test

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Heat from a unit source at one end of a 100-node path, τ = 3. The heat
// left at the source matches the closed form
// (1/n)[1 + 2Σ_k e^{−τλ_k}cos²(πk/2n)], λ_k = 2 − 2cos(πk/n), = 0.31871.
func ExampleNewChebyshev() {
	const n = 100
	edges := make([]laplacian.Edge, n-1)
	for i := range edges {
		edges[i] = laplacian.Edge{U: int32(i), V: int32(i + 1), Weight: 1}
	}
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		panic(err)
	}
	c, err := expm.NewChebyshev(g.Laplacian(), 3, 1e-10)
	if err != nil {
		panic(err)
	}
	x := make([]float64, n)
	x[0] = 1
	y := make([]float64, n)
	c.Apply(y, x, 1)
	mass := 0.0
	for _, v := range y {
		mass += v
	}
	fmt.Printf("B = %.4f, degree %d, bound ≤ 1e-10: %v\n", c.B(), c.Degree(), c.ErrorBound() <= 1e-10)
	fmt.Printf("mass conserved: %v, heat left at the source: %.4f\n", math.Abs(mass-1) <= math.Sqrt(n)*c.ErrorBound(), y[0])
	// Output:
	// B = 4.0000, degree 18, bound ≤ 1e-10: true
	// mass conserved: true, heat left at the source: 0.3187
}

// exp(−τL) of the complete graph K_4 by eigendecomposition.
func ExampleDecompose() {
	var edges []laplacian.Edge
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: 1})
		}
	}
	g, _ := laplacian.FromEdges(4, nil, edges, laplacian.Options{})
	e, err := expm.Decompose(g, expm.DenseOptions{})
	if err != nil {
		panic(err)
	}
	A := e.Exp(0.25)
	// Closed form: 1/4 + e^{−1}·3/4 on the diagonal, (1 − e^{−1})/4 off it.
	fmt.Printf("eigenvalues %.3f\n", e.Values)
	fmt.Printf("A00 = %.6f (closed form %.6f), A01 = %.6f\n", A.At(0, 0), 0.25+0.75*math.Exp(-1), A.At(0, 1))
	// Output:
	// eigenvalues [0.000 4.000 4.000 4.000]
	// A00 = 0.525910 (closed form 0.525910), A01 = 0.158030
}

func ExampleHeatKernel1D() {
	A, err := expm.HeatKernel1D(4, 4, 0.01)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", A.RawRowView(0))
	// Output:
	// [2.8209 0.5913 0.0054 0.0000]
}
