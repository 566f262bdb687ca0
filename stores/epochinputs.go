package stores

import (
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/sensor"
)

// Parameters an epoch's inputs name (errkind.Param).
const (
	ParamOrderOut         errkind.Param = "out"
	ParamSigningKey       errkind.Param = "signing-key"
	ParamNotBefore        errkind.Param = "not-before"
	ParamValidFor         errkind.Param = "valid-for"
	ParamSensitivityCache errkind.Param = "sensitivity-cache"
	ParamTimeBudget       errkind.Param = "time-budget"
	ParamKeyFingerprint   errkind.Param = "key-fingerprint"
)

// EpochInputs name what an epoch of a local release is opened from, as
// its coordinator gives them (epoch open, serve --open-epochs): the graph
// and its Δ2 source, the signing key, the nodes expected, the window and
// where the signed order goes. The rest (τ, α, ε, δ, the scope, the
// ledger) is the configuration's.
type EpochInputs struct {
	Graph string
	// CertificatePath is a fixed Δ2 certificate, CachePath one reused
	// while it verifies (at most one); TimeBudget bounds Δ2's computation
	// (0: to completion).
	CertificatePath, CachePath string
	TimeBudget                 time.Duration
	// Out is the signed order's file; SigningKey the coordinator's Ed25519
	// key file; Nodes the file of the node keys expected ("": every node);
	// KeyFingerprint the master key's fingerprint ("": none).
	Out, SigningKey, Nodes, KeyFingerprint string
	// Epoch is opened for ValidFor from NotBefore (RFC 3339; "": Now);
	// "auto" is the ValidFor slot's UTC start, and the window that slot.
	Epoch     string
	NotBefore string
	ValidFor  time.Duration
	Now       time.Time
}

// Check refuses the inputs that cannot open an epoch, before any file is
// read.
func (in EpochInputs) Check() error {
	switch {
	case in.Out == "" || in.Out == "-":
		return errkind.Usagef("%s FILE is required: the signed epoch order is a file", ParamOrderOut)
	case in.SigningKey == "":
		return errkind.Usagef("%s FILE is required (keygen %s writes one)", ParamSigningKey, errkind.Param("signing"))
	case in.Epoch == "":
		return errkind.Usagef("%s is required: the ledger is charged once per epoch", job.ParamEpoch)
	case in.ValidFor < time.Second || in.ValidFor > 366*24*time.Hour:
		return errkind.Inputf("%s must be between 1s and 366 days, got %v", ParamValidFor, in.ValidFor)
	case in.CertificatePath != "" && in.CachePath != "":
		return errkind.Usagef("give %s (a fixed certificate) or %s (reused while it verifies), not both", job.ParamCertificate, ParamSensitivityCache)
	case in.TimeBudget < 0:
		return errkind.Inputf("%s must be ≥ 0, got %v", ParamTimeBudget, in.TimeBudget)
	case in.KeyFingerprint != "" && !isHex(in.KeyFingerprint, 16):
		return errkind.Inputf("%s must be the 16 hex digits keygen prints, got %q", ParamKeyFingerprint, in.KeyFingerprint)
	}
	return nil
}

// Request is the epoch, its window, the signer and the nodes expected,
// read from the files in names; its Spec is Spec's.
func (in EpochInputs) Request() (EpochRequest, error) {
	notBefore := in.Now.UTC().Truncate(time.Second)
	epoch := in.Epoch
	if epoch == "auto" {
		epoch = schedule.EpochName(notBefore, in.ValidFor)
		notBefore = notBefore.Truncate(in.ValidFor)
	}
	if in.NotBefore != "" {
		t, err := time.Parse(time.RFC3339, in.NotBefore)
		if err != nil {
			return EpochRequest{}, errkind.Inputf("%s must be an RFC 3339 time (2026-11-27T06:00:00Z), got %q", ParamNotBefore, in.NotBefore)
		}
		notBefore = t.UTC()
	}
	signer, err := sensor.LoadSigningKey(in.SigningKey)
	if err != nil {
		return EpochRequest{}, errkind.Input(err)
	}
	req := EpochRequest{Epoch: epoch, NotBefore: notBefore, NotAfter: notBefore.Add(in.ValidFor), Out: in.Out, Signer: signer,
		NodesFrom: in.Nodes, KeyFingerprint: in.KeyFingerprint}
	if in.Nodes != "" {
		if req.Nodes, err = inputfiles.ReadNodeList(in.Nodes, nil); err != nil {
			return EpochRequest{}, err
		}
	}
	return req, nil
}

// Spec is the job spec of the epoch from the configuration (τ, α, ε, δ,
// scope, the ledger) and the Δ2 source; its Epoch is the request's. Its
// key files are read apart, before anything is opened
// (jobfiles.ReadEpochInputs: as a release's, the classic mechanism
// refused).
func (in EpochInputs) Spec(cfg *config.Config, epoch string) job.ReleaseSpec {
	spec := job.ReleaseSpec{Graph: in.Graph, Neo4j: in.Graph == Neo4jSpec, Database: cfg.Neo4j.Database,
		WriteProperty: cfg.Write.WriteProperty, LedgerKind: cfg.Privacy.Ledger, Scope: cfg.Privacy.Scope, Epoch: epoch,
		Tau: cfg.Privacy.Tau, Alpha: cfg.Privacy.Alpha, Epsilon: cfg.Privacy.Epsilon, Delta: cfg.Privacy.Delta,
		CertificatePath: in.CertificatePath, CachePath: in.CachePath, TimeBudget: in.TimeBudget, Software: buildinfo.Read().String()}
	spec.Projection = cfg.Neo4jProjection()
	spec.ValuesFrom = "property:" + spec.Projection.ValueProperty
	return spec
}

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
