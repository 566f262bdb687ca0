package graphcloak_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// Release the heat of a source at member 1 of Zachary's karate club, then
// locate its faction from the private values alone.
func ExampleRelease() {
	g, factions := laplacian.Karate()
	const tau = 0.5
	src, _ := g.IndexOf("1")
	act, _ := expm.NewAction(g, tau, expm.Options{})
	e := make([]float64, g.N())
	e[src] = 1
	y := make([]float64, g.N()) // the sensors' true readings exp(−τL)e_s
	act.Apply(y, e, 1)

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	ledger, _ := privacy.CreateFileLedger(context.Background(), filepath.Join(dir, "ledger.json"), privacy.Budget{Epsilon: 2000, Delta: 1e-5}, privacy.FileLedgerOptions{}, "club")
	// Keyed noise: a key holder can regenerate (and remove) it.
	noise := privacy.KeyedNoise(privacy.Key{1, 2, 3})
	ctx := context.Background()
	rel, err := graphcloak.Release(ctx, graphcloak.ReleaseRequest{Graph: g, Values: y, Tau: tau, Alpha: 1,
		Epsilon: 1000, Delta: 1e-6, Noise: noise, Ledger: ledger, Scope: "club", Epoch: "2026-11-21"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("released %d values with Δ2 %s\n", len(rel.Released.Values), rel.Sensitivity.Method)

	loc, err := graphcloak.Locate(ctx, graphcloak.LocateRequest{Graph: g, Released: rel.Released, Tau: tau,
		Partition: factions, Names: []string{"Mr. Hi", "Officer"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	top := loc.Report.Communities[0]
	fmt.Printf("most likely source community: %s (probability > 0.9: %v)\n", top.Name, top.Share > 0.9)
	// Output:
	// released 34 values with Δ2 dense-eigen
	// most likely source community: Mr. Hi (probability > 0.9: true)
}

// Estimate a release of the karate club before running it: nothing is
// computed beyond the cost model, nothing charged. Without a Δ2 it quotes
// the proven bound Δ2 ≤ α·√2, and σ for that bound.
func ExampleEstimate() {
	g, _ := laplacian.Karate()
	est, err := graphcloak.Estimate(graphcloak.EstimateRequest{Graph: g, Tau: 0.5, Alpha: 1, Epsilon: 1, Delta: 1e-6})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d nodes, %d relationships, %d component\n", est.NodeCount, est.RelationshipCount, est.Components)
	fmt.Printf("Δ2 ≤ √2: %v (exact: %v), σ > 0: %v, mechanism %s\n", est.Delta2 >= math.Sqrt2 && est.Delta2 <= math.Nextafter(math.Sqrt2, 2), est.Delta2Exact, est.Sigma > 0, est.Mechanism)
	// Output:
	// 34 nodes, 78 relationships, 1 component
	// Δ2 ≤ √2: true (exact: false), σ > 0: true, mechanism discrete
}

// Read a sensor gateway's readings ("node,value" rows) and order them as
// the graph's nodes: a node without a reading is an error a release
// refuses (ErrMissingValue), never a silent zero.
func ExampleReadValues() {
	g, _ := laplacian.Karate()
	byKey, err := graphcloak.ReadValues(strings.NewReader("node,value\n1,0.5\n34,0.25\n"), "auto")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(byKey), "readings; node 34:", byKey["34"])
	_, err = graphcloak.ValuesByKey(g, byKey)
	fmt.Println("missing value:", errors.Is(err, graphcloak.ErrMissingValue))
	// Output:
	// 2 readings; node 34: 0.25
	// missing value: true
}
