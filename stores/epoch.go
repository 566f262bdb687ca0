package stores

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
)

// ParamNodes names the list of the nodes an epoch expects.
const ParamNodes errkind.Param = "nodes"

// EpochRequest is an epoch of a local release to open on the stores.
type EpochRequest struct {
	// Spec is the epoch's release spec (graph, τ, α, ε, δ, scope, the Δ2
	// source), checked as a release's is; Spec.Epoch is replaced by Epoch.
	Spec job.ReleaseSpec
	// Epoch is opened for the window [NotBefore, NotAfter); its signed
	// order is written to Out.
	Epoch               string
	NotBefore, NotAfter time.Time
	Out                 string
	// Signer is the coordinator's Ed25519 signing key.
	Signer ed25519.PrivateKey
	// Nodes are the node keys expected (nil: every node of the graph),
	// read from NodesFrom (named in errors).
	Nodes     []string
	NodesFrom string
	// KeyFingerprint is the master key's fingerprint, carried into the
	// order ("": none).
	KeyFingerprint string
	// Bookkeeping is the context of reading the balance after the charge
	// (nil: ctx without its cancellation).
	Bookkeeping func() context.Context
}

// EpochOpened is what opening an epoch did: epoch open prints it.
type EpochOpened struct {
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
	// Order is the published order and Envelope its signed bytes, as a
	// collector serves them.
	Order    local.Order `json:"-"`
	Envelope []byte      `json:"-"`
}

// OpenEpoch opens req.Epoch of a local release (local.OpenEpoch) on the
// stores' graph and ledger: the graph read, the order re-published when
// req.Out holds it (before Δ2 is computed again), else Δ2 certified and σ
// calibrated (job.CalibrateEpoch) and the epoch charged once. env gives
// the logger, progress and messages of the calibration.
func (s *Stores) OpenEpoch(ctx context.Context, req EpochRequest, env job.Env) (*EpochOpened, error) {
	spec := req.Spec
	spec.Epoch = req.Epoch
	lg, err := s.LoadGraph(ctx, spec.Graph, LoadOptions{})
	if err != nil {
		return nil, err
	}
	gr := lg.Graph
	nodes := gr.Keys()
	if req.Nodes != nil {
		if nodes, err = expectedNodes(req.Nodes, req.NodesFrom, gr.Keys()); err != nil {
			return nil, err
		}
	}
	fp := gr.Fingerprint()
	want := local.Order{Tau: spec.Tau, Alpha: spec.Alpha, Epsilon: spec.Epsilon, Delta: spec.Delta, Scope: spec.Scope, Epoch: req.Epoch,
		NotBefore: req.NotBefore, NotAfter: req.NotAfter, Nodes: nodes, KeyFingerprint: req.KeyFingerprint,
		Graph: local.OrderGraph{NodeCount: fp.Nodes, RelationshipCount: fp.Edges, SHA256: fp.SHA256}}
	sum := &EpochOpened{Out: req.Out, NodeCount: gr.N(), RelationshipCount: gr.NumEdges()}
	opened, err := local.Republish(req.Out, req.Signer, want)
	if err != nil {
		return nil, err
	}
	if opened == nil {
		cal, err := job.CalibrateEpoch(ctx, &spec, gr, env)
		if err != nil {
			return nil, err
		}
		want.Sensitivity, want.CertificateDigest = cal.Sensitivity.Delta2, cal.CertificateDigest
		c := cal.Calibration
		want.EffectiveSensitivity, want.Rho = c.EffectiveSensitivity, c.Rho
		want.Sampler = local.Sampler{Version: c.SamplerVersion, GridExponent: c.GridExponent, GridVariance: c.GridVariance, Sigma: c.Sigma}
		sum.SensitivityReused = cal.Reused
		if opened, err = local.OpenEpoch(ctx, local.OpenRequest{Order: want, Out: req.Out, Signer: req.Signer, Ledger: s.Ledger}); err != nil {
			return nil, err
		}
	}
	sum.fill(opened, req.Signer)
	after := context.WithoutCancel(ctx)
	if req.Bookkeeping != nil {
		after = req.Bookkeeping()
	}
	if b, err := s.Ledger.Balance(after, sum.Scope); err == nil && len(b) == 1 {
		sum.RhoSpent, sum.RhoRemaining = b[0].RhoSpent, b[0].RhoRemaining
	}
	s.logger.Info("epoch open", "scope", sum.Scope, "epoch", sum.Epoch, "releaseId", sum.ReleaseID, "charged", sum.Charged, "republished", sum.Republished)
	return sum, nil
}

// fill copies the published order into s.
func (s *EpochOpened) fill(opened *local.Opened, signer ed25519.PrivateKey) {
	oo := opened.Order
	s.Order, s.Envelope = oo, opened.Envelope
	s.Scope, s.Epoch, s.ReleaseID = oo.Scope, oo.Epoch, oo.ReleaseID
	s.Charged, s.Republished, s.Resumed = opened.Charged, opened.Republished, opened.Resumed
	s.Expected, s.Tau, s.Alpha, s.Epsilon, s.Delta = len(oo.Nodes), oo.Tau, oo.Alpha, oo.Epsilon, oo.Delta
	s.Delta2, s.CertificateDigest, s.Sigma, s.Rho = oo.Sensitivity, oo.CertificateDigest, oo.Sampler.Sigma, oo.Rho
	s.GridExponent, s.GridVariance, s.NotBefore, s.NotAfter = oo.Sampler.GridExponent, oo.Sampler.GridVariance, oo.NotBefore, oo.NotAfter
	s.CoordinatorKey = hex.EncodeToString(signer.Public().(ed25519.PublicKey))
}

// expectedNodes checks that every node listed (from) is a node of the graph.
func expectedNodes(nodes []string, from string, graphKeys []string) ([]string, error) {
	inGraph := make(map[string]bool, len(graphKeys))
	for _, k := range graphKeys {
		inGraph[k] = true
	}
	for _, k := range nodes {
		if !inGraph[k] {
			return nil, errkind.Inputf("%s %s: %q is not a node of the graph", ParamNodes, from, k)
		}
	}
	return nodes, nil
}

// PublishCollected writes a closed epoch's release to the stores'
// projection in Neo4j under a release run (job.PublishCollected), once
// the projection's graph is checked to be the order's; it returns the run
// id. The stores must be connected.
func (s *Stores) PublishCollected(ctx context.Context, rel *privacy.Released, env job.Env) (string, error) {
	if s.Client == nil {
		return "", errkind.New(errkind.Internal, "stores: publishing a collected epoch needs the stores connected to Neo4j")
	}
	if err := s.Projection.Validate(); err != nil {
		return "", err
	}
	lg, err := s.LoadGraph(ctx, Neo4jSpec, LoadOptions{})
	if err != nil {
		return "", err
	}
	if d := lg.Graph.Fingerprint().Diff(*rel.Meta.Graph); d != "" {
		return "", errkind.Inputf("%s %s: the projection is not the graph the epoch was opened on: %s", job.ParamGraph, Neo4jSpec, d)
	}
	cfg := &s.cfg.Config
	m := rel.Meta
	spec := job.ReleaseSpec{RunID: job.NewRunID(), Graph: Neo4jSpec, ValuesFrom: "collected:" + m.ReleaseID, Neo4j: true,
		Database: cfg.Neo4j.Database, Projection: s.Projection, WriteProperty: cfg.Write.WriteProperty, LedgerKind: "collected",
		Scope: m.Scope, Epoch: m.Epoch, Tau: m.Tau, Alpha: m.Alpha, Epsilon: m.Epsilon,
		Delta: m.Delta, Software: buildinfo.Read().String(), Lease: connector.DefaultLease, Wait: connector.DefaultLease}
	env.Backend = s.Backend()
	sum, err := job.PublishCollected(ctx, spec, rel, env)
	if sum != nil {
		return sum.RunID, err
	}
	return "", err
}
