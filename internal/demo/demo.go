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

// Job is the pipeline end to end on one graph: a unit source's
// readings released, and the source located from the released values
// alone.
type Job struct {
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
// at job.Source, releases them against a throw-away ledger with room for
// this one release, and locates the source from the released values only.
func ReleaseAndLocate(ctx context.Context, job Job) (*graphcloak.ReleaseResult, *graphcloak.LocateResult, error) {
	g := job.Graph
	act, err := expm.NewAction(g, job.Tau, expm.Options{})
	if err != nil {
		return nil, nil, err
	}
	e := make([]float64, g.N())
	e[job.Source] = 1
	y := make([]float64, g.N())
	act.Apply(y, e, 1)
	dir, err := os.MkdirTemp("", "graphcloak-demo-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	ledger, err := privacy.CreateFileLedger(ctx, filepath.Join(dir, "ledger.json"), privacy.Budget{Epsilon: 2 * job.Epsilon, Delta: job.Delta},
		privacy.FileLedgerOptions{}, "demo")
	if err != nil {
		return nil, nil, err
	}
	rel, err := graphcloak.Release(ctx, graphcloak.ReleaseJob{Graph: g, Values: y, Tau: job.Tau, Alpha: 1,
		Epsilon: job.Epsilon, Delta: job.Delta, Noise: privacy.CryptoNoise(), Ledger: ledger,
		Scope: "demo", Epoch: job.Epoch, Progress: job.Progress})
	if err != nil {
		return nil, nil, err
	}
	clear(y) // only the released values are used from here on
	loc, err := graphcloak.Locate(ctx, graphcloak.LocateJob{Graph: g, Released: rel.Released, Tau: job.Tau,
		Partition: job.Partition, Progress: job.Progress})
	return rel, loc, err
}
