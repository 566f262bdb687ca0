package answer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// Answer which faction of Zachary's karate club a source at member 1 lies
// in, from the raw readings, publishing only the faction: the library's
// door of a private answer (locate --private-answer and serve run it
// through the job package, which adds run records and outputs).
func ExampleRun() {
	g, factions := laplacian.Karate()
	const tau = 0.5
	src, _ := g.IndexOf("1")
	act, _ := expm.NewAction(g, tau, expm.Options{})
	e := make([]float64, g.N())
	e[src] = 1
	y := make([]float64, g.N()) // the sensors' true readings exp(−τL)e_s: never published
	act.Apply(y, e, 1)

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	ledger, _ := privacy.CreateFileLedger(ctx, filepath.Join(dir, "ledger.json"), privacy.Budget{Epsilon: 100, Delta: 1e-5}, privacy.FileLedgerOptions{}, "club")
	res, err := answer.Run(ctx, answer.Request{Graph: g, Values: y, Tau: tau, Epsilon: 20,
		Partition: factions, Names: []string{"Mr. Hi", "Officer"},
		Ledger: ledger, Scope: "club", Epoch: "2026-11-21", Noise: privacy.CryptoNoise()})
	if err != nil {
		fmt.Println(err)
		return
	}
	// At ε = 20 the answer is right with probability 1 − 8·10⁻¹⁰
	// (res.Calibration.Accuracy), so this output is what a run prints.
	fmt.Printf("published: %s (ε = %g charged)\n", res.Community, res.Calibration.Epsilon)
	// Output:
	// published: Mr. Hi (ε = 20 charged)
}
