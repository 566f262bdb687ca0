package job

import (
	"math"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// ReleaseSpec is one release as asked for, after the command has parsed its
// flags and read its local files (the noise key, the certificate, the
// readings): what graph, which parameters, where the values go, which
// ledger scope and epoch pays for them. PlanRelease checks it.
type ReleaseSpec struct {
	// RunID names the run (and, without Epoch, the epoch).
	RunID string
	// Graph and ValuesFrom describe the inputs for the summary
	// ("neo4j", "karate"; "csv:FILE", "property:P").
	Graph, ValuesFrom string
	// Neo4j publishes to the database (Database, Projection,
	// WriteProperty) under a run record; Out, when set, is the release
	// file. Projection.ValueProperty is set when the readings are a
	// stored property.
	Neo4j         bool
	Database      string
	Projection    connector.Projection
	WriteProperty string
	Out           string
	// Ledger names the ledger in the summary (a path, or "neo4j");
	// LedgerKind is the configured kind recorded in the run's parameters.
	Ledger, LedgerKind string
	// Scope is charged; Epoch is the release id ("" means RunID).
	Scope, Epoch string
	// The privacy parameters: τ, α, ε, δ, the extra smoothing τ′ and the
	// mechanism; Noise draws (crypto/rand or the keyed stream).
	Tau, Alpha, Epsilon, Delta, Smooth float64
	// SmoothAuto chooses Smooth among SmoothCandidates by the per-node
	// forecast (automatic smoothing; ReleasePlan.chooseSmooth).
	SmoothAuto bool
	Mechanism  privacy.Mechanism
	Noise      privacy.NoiseSource
	// The Δ2 source: Certificate (loaded and its MAC checked, verified
	// against the graph by PlanRelease; CertificatePath names it in
	// errors), else the certificate cached at CachePath while it
	// verifies, else the one the work store (Store, when CachePath is "")
	// keeps, else computed within TimeBudget (0: to completion).
	// LedgerKey authenticates certificates; Software is this build,
	// recorded in the certificates it writes.
	Certificate     *sensitivity.Certificate
	CertificatePath string
	CachePath       string
	Store           *WorkCache
	TimeBudget      time.Duration
	LedgerKey       *privacy.Key
	Software        string
	// Lease is the run record's lease; Wait how long to wait for another
	// live run of the scope or epoch.
	Lease, Wait time.Duration
	// DryRun plans only: nothing is claimed, charged, drawn or written.
	// Its utility forecast simulates ForecastTrials sources (0: none)
	// with Estimator, seeded by ForecastSeed.
	DryRun         bool
	ForecastTrials int
	Estimator      string
	ForecastSeed   uint64
	// RefuseAtChance forecasts a real release the same way once σ is
	// known and refuses it, before the ledger is charged, when its
	// verdict is noise (ReleaseVerdict, *AtChanceError): at SourceMass, or
	// with none stated at every mass up to forecast.MaxMass.
	RefuseAtChance bool
	// SourceMass, when > 0, is the total source mass the operator states
	// the readings carry (--source-mass): the dry run's and
	// RefuseAtChance's per-node forecast simulates it. 0: none stated —
	// the verdict is the forecast by source mass (never the readings).
	SourceMass float64
	// Communities names the partition the forecasts score, as locate
	// reads one ("file:PATH", "property:NAME", "louvain", …; the loader,
	// env.Load, puts it in Input.Partition). "" or "leiden": Leiden with
	// ForecastSeed, as locate detects communities by default.
	Communities string
}

// epoch is the release id the ledger is charged under.
func (s *ReleaseSpec) epoch() string {
	if s.Epoch == "" {
		return s.RunID
	}
	return s.Epoch
}

// Check validates the names and parameters of s: nothing is read,
// claimed or charged before they are.
func (s *ReleaseSpec) Check() error {
	if err := privacy.CheckName("scope", s.Scope); err != nil {
		return errkind.Inputf("%s: %w", ParamScope, err)
	}
	if s.Epoch != "" {
		if err := privacy.CheckName("epoch", s.Epoch); err != nil {
			return errkind.Inputf("%s: %w", ParamEpoch, err)
		}
	}
	if s.Neo4j {
		if err := connector.CheckWriteProperty(s.WriteProperty); err != nil {
			return errkind.Inputf("%s: %w", ParamWriteProperty, err)
		}
		if err := checkOutputs(s.Projection, nil,
			map[errkind.Param]string{ParamWriteProperty: s.WriteProperty}, map[errkind.Param]bool{ParamWriteProperty: true}); err != nil {
			return err
		}
		if err := s.Projection.Validate(); err != nil {
			return err
		}
	}
	if s.SmoothAuto && s.Certificate != nil {
		return errkind.Inputf("%s auto tries several τ′, each with its own Δ2; %s holds one: give %s τ′ with it", ParamSmooth, ParamCertificate, ParamSmooth)
	}
	if s.SourceMass < 0 || math.IsNaN(s.SourceMass) || math.IsInf(s.SourceMass, 0) {
		return errkind.Inputf("%s must be a positive finite number of units (0: none stated), got %g", ParamSourceMass, s.SourceMass)
	}
	return graphcloak.CheckParams(s.Tau, s.Alpha, s.Epsilon, s.Delta)
}

// claims are the outputs a release owns: its write property and the run
// ids beside it; the projection's key and readings are inputs, never
// written.
func (s *ReleaseSpec) claims() connector.Claims {
	return connector.Claims{
		Outputs: map[string]string{s.WriteProperty: connector.KindReleaseValues, connector.RunIDProperty(s.WriteProperty): connector.KindRunIDs},
		Inputs:  connector.InputClaims(s.Projection)}
}

// runRecord is the run record a fresh release starts.
func (s *ReleaseSpec) runRecord() connector.RunRecord {
	return connector.RunRecord{RunID: s.RunID, Command: "release", Database: s.Database, Projection: s.Projection,
		Epsilon: s.Epsilon, Delta: s.Delta, WriteProperty: s.WriteProperty, Scope: s.Scope, Epoch: s.epoch(),
		Parameters: map[string]any{"tau": s.Tau, "alpha": s.Alpha, "mechanism": s.Mechanism.String(),
			"keyed": s.keyed(), "valuesFrom": s.ValuesFrom, "ledger": s.LedgerKind, "smooth": s.Smooth}}
}

func (s *ReleaseSpec) keyed() bool { return s.Noise.Keyed() }
