package experiment_test

import (
	"context"
	"fmt"

	"github.com/graphcloak/graphcloak/experiment"
)

// The paper's Figure 1 setting with BPDN.
func ExampleRunLine() {
	res, err := experiment.RunLine(context.Background(), experiment.Line{
		N: 100, M: 50, T: 0.05, Sigma: 0.1, Sources: []float64{0.24, 0.76},
		Trials: 20, Estimator: "bpdn", Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("trials:", res.Trials, "estimator:", res.Estimator)
	fmt.Println("mean EMD ≤ 0.06:", res.EMDMean <= 0.06)
	// Output:
	// trials: 20 estimator: bpdn
	// mean EMD ≤ 0.06: true
}
