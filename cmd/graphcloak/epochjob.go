package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// What epoch open and serve --open-epochs share: an epoch of a local
// release opened on stores opened once (epochOpener.open).

// EpochOpenSummary is what epoch open prints.
type EpochOpenSummary struct {
	Out               string    `json:"out"`
	Scope             string    `json:"scope"`
	Epoch             string    `json:"epoch"`
	ReleaseID         string    `json:"releaseId"`
	Charged           bool      `json:"charged"`
	Republished       bool      `json:"republished"`
	Resumed           bool      `json:"resumed"`
	NodeCount         int       `json:"nodeCount"`
	RelationshipCount int       `json:"relationshipCount"`
	Expected          int       `json:"expected"`
	Tau               float64   `json:"tau"`
	Alpha             float64   `json:"alpha"`
	Epsilon           float64   `json:"epsilon"`
	Delta             float64   `json:"delta"`
	Delta2            float64   `json:"delta2"`
	CertificateDigest string    `json:"certificateDigest"`
	SensitivityReused bool      `json:"sensitivityReused"`
	Sigma             float64   `json:"sigma"`
	Rho               float64   `json:"rho"`
	GridExponent      int       `json:"gridExponent"`
	GridVariance      uint64    `json:"gridVariance"`
	NotBefore         time.Time `json:"notBefore"`
	NotAfter          time.Time `json:"notAfter"`
	CoordinatorKey    string    `json:"coordinatorKey"`
	RhoSpent          float64   `json:"rhoSpent"`
	RhoRemaining      float64   `json:"rhoRemaining"`
}

// epochSpec is the job spec of an epoch from the configuration (τ, α,
// ε, δ, scope, the ledger) and the Δ2 source, read and checked as a
// release's is (inputfiles.ReadReleaseInputs); the classic mechanism is
// refused (sensors draw the discrete Gaussian).
func epochSpec(g *globalOptions, graph, cert, cache string, timeBudget time.Duration, epoch string) (job.ReleaseSpec, error) {
	cfg := &g.cfg.Config
	spec := job.ReleaseSpec{Graph: graph, Neo4j: graph == stores.Neo4jSpec, Database: cfg.Neo4j.Database,
		WriteProperty: cfg.Write.WriteProperty, LedgerKind: cfg.Privacy.Ledger, Scope: cfg.Privacy.Scope, Epoch: epoch,
		Tau: cfg.Privacy.Tau, Alpha: cfg.Privacy.Alpha, Epsilon: cfg.Privacy.Epsilon, Delta: cfg.Privacy.Delta,
		CertificatePath: cert, CachePath: cache, TimeBudget: timeBudget, Software: buildinfo.Read().String()}
	spec.Projection = cfg.Neo4jProjection()
	spec.ValuesFrom = "property:" + spec.Projection.ValueProperty
	if err := inputfiles.ReadReleaseInputs(cfg, &spec); err != nil {
		return job.ReleaseSpec{}, err
	}
	if m, err := privacy.ReleaseMechanism(spec.Mechanism); err == nil && !m.AtSensor { // privacy's mechanism table says
		return job.ReleaseSpec{}, inputErrorf("--mechanism %s is not offered in local mode: sensors draw the discrete Gaussian of the default mechanism", m.Name)
	}
	return spec, nil
}

// epochOpener opens epochs of one graph and scope on opened stores.
type epochOpener struct {
	g      *globalOptions
	spec   job.ReleaseSpec
	st     *stores.Stores
	signer ed25519.PrivateKey
	// nodesFile lists the nodes expected ("": every node of the graph);
	// keyFingerprint is the master key's, carried into the order.
	nodesFile, keyFingerprint string
	// after is the bookkeeping context (reading the balance).
	after func() context.Context
}

// open opens epoch for the window [notBefore, notAfter) and writes its
// order to out (local.OpenEpoch): the graph read, the order re-published
// when out holds it, else Δ2 certified and σ calibrated
// (job.CalibrateEpoch) and the epoch charged once.
func (e *epochOpener) open(ctx context.Context, epoch string, notBefore, notAfter time.Time, out string) (*EpochOpenSummary, error) {
	g, spec, st, signer := e.g, e.spec, e.st, e.signer
	spec.Epoch = epoch
	lg, err := st.LoadGraph(ctx, spec.Graph, stores.LoadOptions{})
	if err != nil {
		return nil, err
	}
	gr := lg.Graph
	nodes := gr.Keys()
	if e.nodesFile != "" {
		if nodes, err = epochNodes(e.nodesFile, gr.Keys()); err != nil {
			return nil, err
		}
	}
	want := local.Order{Tau: spec.Tau, Alpha: spec.Alpha, Epsilon: spec.Epsilon, Delta: spec.Delta,
		Scope: spec.Scope, Epoch: epoch, NotBefore: notBefore, NotAfter: notAfter, Nodes: nodes, KeyFingerprint: e.keyFingerprint}
	fp := gr.Fingerprint()
	want.Graph = local.OrderGraph{NodeCount: fp.Nodes, RelationshipCount: fp.Edges, SHA256: fp.SHA256}
	sum := &EpochOpenSummary{Out: out, NodeCount: gr.N(), RelationshipCount: gr.NumEdges()}
	// An order already published is re-published before Δ2 is computed again.
	opened, err := local.Republish(out, signer, want)
	if err != nil {
		return nil, err
	}
	if opened == nil {
		cal, err := job.CalibrateEpoch(ctx, &spec, gr, job.Env{Logger: g.logger, Progress: g.progress, Say: g.say})
		if err != nil {
			return nil, err
		}
		want.Sensitivity, want.CertificateDigest = cal.Sensitivity.Delta2, cal.CertificateDigest
		c := cal.Calibration
		want.EffectiveSensitivity, want.Rho = c.EffectiveSensitivity, c.Rho
		want.Sampler = local.Sampler{Version: c.SamplerVersion, GridExponent: c.GridExponent, GridVariance: c.GridVariance, Sigma: c.Sigma}
		sum.SensitivityReused = cal.Reused
		if opened, err = local.OpenEpoch(ctx, local.OpenRequest{Order: want, Out: out, Signer: signer, Ledger: st.Ledger}); err != nil {
			return nil, withInitHint(&g.cfg.Config, err)
		}
	}
	oo := opened.Order
	sum.Scope, sum.Epoch, sum.ReleaseID = oo.Scope, oo.Epoch, oo.ReleaseID
	sum.Charged, sum.Republished, sum.Resumed = opened.Charged, opened.Republished, opened.Resumed
	sum.Expected, sum.Tau, sum.Alpha, sum.Epsilon, sum.Delta = len(oo.Nodes), oo.Tau, oo.Alpha, oo.Epsilon, oo.Delta
	sum.Delta2, sum.CertificateDigest, sum.Sigma, sum.Rho = oo.Sensitivity, oo.CertificateDigest, oo.Sampler.Sigma, oo.Rho
	sum.GridExponent, sum.GridVariance, sum.NotBefore, sum.NotAfter = oo.Sampler.GridExponent, oo.Sampler.GridVariance, oo.NotBefore, oo.NotAfter
	sum.CoordinatorKey = hex.EncodeToString(signer.Public().(ed25519.PublicKey))
	if b, err := st.Ledger.Balance(e.after(), oo.Scope); err == nil && len(b) == 1 {
		sum.RhoSpent, sum.RhoRemaining = b[0].RhoSpent, b[0].RhoRemaining
	}
	g.logger.Info("epoch open", "scope", sum.Scope, "epoch", sum.Epoch, "releaseId", sum.ReleaseID, "charged", sum.Charged, "republished", sum.Republished)
	return sum, nil
}

// epochNodes reads the node keys of --nodes (readNodeList: one per
// line, none twice), each a node of the graph.
func epochNodes(path string, graphKeys []string) ([]string, error) {
	nodes, err := readNodeList(path, nil)
	if err != nil {
		return nil, err
	}
	inGraph := make(map[string]bool, len(graphKeys))
	for _, k := range graphKeys {
		inGraph[k] = true
	}
	for _, k := range nodes {
		if !inGraph[k] {
			return nil, inputErrorf("--nodes %s: %q is not a node of the graph", path, k)
		}
	}
	return nodes, nil
}

// publishCollected writes the closed epoch's release to the configured
// projection in Neo4j under a release run (job.PublishCollected), once the
// projection's graph is checked to be the order's; it returns the run id.
// It writes through open (serve's stores: the process's one driver) when
// they are connected, else through stores it opens and closes.
func publishCollected(ctx context.Context, g *globalOptions, open *stores.Stores, rel *privacy.Released) (string, error) {
	cfg := &g.cfg.Config
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	st := open
	if st == nil || st.Client == nil {
		var err error
		if st, err = stores.Open(ctx, g.cfg, storesOptions(g, after, stores.Options{Neo4j: true, CheckProjection: true})); err != nil {
			return "", err
		}
		defer st.Close(after.Context())
	} else if err := st.Projection.Validate(); err != nil {
		return "", err
	}
	lg, err := st.LoadGraph(ctx, stores.Neo4jSpec, stores.LoadOptions{})
	if err != nil {
		return "", err
	}
	if d := lg.Graph.Fingerprint().Diff(*rel.Meta.Graph); d != "" {
		return "", inputErrorf("%s: the projection is not the graph the epoch was opened on: %s", graphNeo4j, d)
	}
	spec := job.ReleaseSpec{RunID: job.NewRunID(), Graph: stores.Neo4jSpec, ValuesFrom: "collected:" + rel.Meta.ReleaseID, Neo4j: true,
		Database: cfg.Neo4j.Database, Projection: st.Projection, WriteProperty: cfg.Write.WriteProperty, LedgerKind: "collected",
		Scope: rel.Meta.Scope, Epoch: rel.Meta.Epoch, Tau: rel.Meta.Tau, Alpha: rel.Meta.Alpha, Epsilon: rel.Meta.Epsilon,
		Delta: rel.Meta.Delta, Software: buildinfo.Read().String(), Lease: connector.DefaultLease, Wait: connector.DefaultLease}
	sum, err := job.PublishCollected(ctx, spec, rel, job.Env{Backend: st.Backend(), Logger: g.logger, Progress: g.progress, Say: g.say, Bookkeeping: after.Context})
	if sum != nil {
		return sum.RunID, err
	}
	return "", err
}
