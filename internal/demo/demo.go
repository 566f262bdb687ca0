package demo

import (
	"context"
	"os"
	"path/filepath"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// Request is the pipeline end to end on one graph: a unit source's
// readings released, and the source located from the released values
// alone.
type Request struct {
	Graph *laplacian.Graph
	// Source is the node holding the unit source; Partition the
	// communities the source is located among.
	Source    int
	Partition []int
	Tau       float64
	Epsilon   float64
	Delta     float64
	// Epoch names the release in its throw-away ledger (scope "demo").
	Epoch    string
	Progress graphcloak.Progress
}

// ReleaseAndLocate simulates the sensors' readings y = exp(−τL)·e_s of a unit source
// at req.Source, releases them against a throw-away ledger with room for
// this one release, and locates the source from the released values only.
func ReleaseAndLocate(ctx context.Context, req Request) (*graphcloak.ReleaseResult, *graphcloak.LocateResult, error) {
	g := req.Graph
	act, err := expm.NewAction(g, req.Tau, expm.Options{})
	if err != nil {
		return nil, nil, err
	}
	e := make([]float64, g.N())
	e[req.Source] = 1
	y := make([]float64, g.N())
	act.Apply(y, e, 1)
	dir, err := os.MkdirTemp("", "graphcloak-demo-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	ledger, err := privacy.CreateFileLedger(ctx, filepath.Join(dir, "ledger.json"), privacy.Budget{Epsilon: 2 * req.Epsilon, Delta: req.Delta},
		privacy.FileLedgerOptions{}, "demo")
	if err != nil {
		return nil, nil, err
	}
	rel, err := graphcloak.Release(ctx, graphcloak.ReleaseRequest{Graph: g, Values: y, Tau: req.Tau, Alpha: 1,
		Epsilon: req.Epsilon, Delta: req.Delta, Noise: privacy.CryptoNoise(), Ledger: ledger,
		Scope: "demo", Epoch: req.Epoch, Progress: req.Progress})
	if err != nil {
		return nil, nil, err
	}
	clear(y) // only the released values are used from here on
	loc, err := graphcloak.Locate(ctx, graphcloak.LocateRequest{Graph: g, Released: rel.Released, Tau: req.Tau,
		Partition: req.Partition, Progress: req.Progress})
	return rel, loc, err
}
