package sensitivity_test

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
	"gonum.org/v1/gonum/mat"
)

// The complete graph K_5 at τ = 1: Δ2 = √2·e^{−5} (closed form).
func ExampleGraph() {
	var edges []laplacian.Edge
	for i := int32(0); i < 5; i++ {
		for j := i + 1; j < 5; j++ {
			edges = append(edges, laplacian.Edge{U: i, V: j, Weight: 1})
		}
	}
	g, err := laplacian.FromEdges(5, nil, edges, laplacian.Options{})
	if err != nil {
		panic(err)
	}
	s, err := sensitivity.Graph(g, 1, 1, sensitivity.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("Δ2 = %.10f (closed form %.10f), certified %v, %s\n", s.Delta2, math.Sqrt2*math.Exp(-5), s.Certified, s.Method)
	fmt.Printf("κ2 = e^5 = %.4f\n", s.Kappa2)
	// Output:
	// Δ2 = 0.0095288960 (closed form 0.0095288960), certified true, dense-eigen
	// κ2 = e^5 = 148.4132
}

func ExampleLine() {
	s, err := sensitivity.Line(100, 50, 0.05, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("Δ2 = %.6f between grid points %d and %d\n", s.Delta2, s.Edge[0]+1, s.Edge[1]+1)
	// Output:
	// Δ2 = 13.589715 between grid points 50 and 51
}

// Three locations on a path with declared distances.
func ExampleMatrix() {
	M := mat.NewDense(2, 3, []float64{
		1, 0.5, 0,
		0, 0.5, 1,
	})
	pairs := []sensitivity.LocationPair{{I: 0, J: 1, Distance: 1}, {I: 1, J: 2, Distance: 2}}
	s, err := sensitivity.Matrix(M, pairs, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("Δ2 = %.6f on pair %v\n", s.Delta2, s.Edge)
	// Output:
	// Δ2 = 0.707107 on pair [0 1]
}
