package recovery_test

import (
	"fmt"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

func ExampleEMDLine() {
	p := []float64{0, 1, 0, 0, 0}
	q := []float64{0, 0, 0, 0, 2} // normalised: a unit mass three cells away
	d, err := recovery.EMDLine(p, q, 0.2)
	fmt.Printf("%.2f %v\n", d, err)
	// Output: 0.60 <nil>
}

func ExampleEMDGraph() {
	g, _ := laplacian.Path(5)
	p := []float64{1, 0, 0, 0, 0}
	q := []float64{0, 0, 0, 0.5, 0.5} // half moves 3 hops, half 4 hops
	d, err := recovery.EMDGraph(g, p, q)
	fmt.Printf("%.2f %v\n", d, err)
	// Output: 3.50 <nil>
}

func ExampleBPDN() {
	// Noiseless data from a unit source on a 20-point line with 10
	// sensors; η = σ√m.
	md, _ := recovery.NewLineModel(20, 10, 0.01)
	f0 := make([]float64, 20)
	f0[9] = 1
	y := make([]float64, 10)
	md.Apply(y, f0)
	p := md.Problem(y, 0.01)
	p.Eta = recovery.EtaPaper
	est, err := recovery.BPDN{}.Estimate(p)
	fmt.Println(est.Status, err)
	fmt.Printf("1ᵀf = %.3f, certified gap ≤ 1e-6: %v\n", est.Objective, est.Gap <= 1e-6*est.Objective)
	// Output:
	// solved <nil>
	// 1ᵀf = 0.993, certified gap ≤ 1e-6: true
}

func ExamplePosterior() {
	g, _ := laplacian.Path(9)
	md, _ := recovery.NewGraphModel(g, 0.5, recovery.GraphOptions{})
	f0 := make([]float64, 9)
	f0[3] = 1
	y := make([]float64, 9)
	md.Apply(y, f0) // noiseless, for a reproducible example
	est, _ := recovery.ByName(recovery.Default)
	res, _ := est.Estimate(md.Problem(y, 0.2))
	fmt.Printf("%s: MAP node %d, p = %.3f\n", est.Name(), res.Locations[0], res.Posterior[3])
	// Output: posterior: MAP node 3, p = 0.832
}
