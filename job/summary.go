package job

import (
	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/privacy"
)

// ReleaseSummary is what a release did (or, for a dry run, would do): the
// output of release and of each slot of serve (-o json keys in GDS
// style, docs/schemas). The command adds its own fields (the forecast).
type ReleaseSummary struct {
	RunID             string  `json:"runId,omitempty"`
	Graph             string  `json:"graph"`
	DryRun            bool    `json:"dryRun"`
	ValuesFrom        string  `json:"valuesFrom"`
	TimeBudgetSeconds float64 `json:"timeBudgetSeconds,omitempty"` // the time budget, when given
	NodeCount         int     `json:"nodeCount"`
	RelationshipCount int     `json:"relationshipCount"`
	Delta2            float64 `json:"delta2"`
	Delta2Exact       bool    `json:"delta2Exact"`
	SensitivityMethod string  `json:"sensitivityMethod,omitempty"`
	// SensitivityReused: Δ2 came from the sensitivity cache (graph unchanged).
	SensitivityReused bool    `json:"sensitivityReused"`
	Sigma             float64 `json:"sigma"`
	Rho               float64 `json:"rho"`
	Epsilon           float64 `json:"epsilon"`
	Delta             float64 `json:"delta"`
	Mechanism         string  `json:"mechanism"`
	Keyed             bool    `json:"keyed"`
	Scope             string  `json:"scope"`
	// RhoSpent and RhoRemaining are the scope's zCDP budget after this
	// run (a dry run charges nothing: the budget now).
	RhoSpent     float64 `json:"rhoSpent"`
	RhoRemaining float64 `json:"rhoRemaining"`
	// Balance is the scope's balance when the release was planned, before
	// its charge: what a fresh release is charged from (nil when the plan
	// did not read it: a re-publication, a release file already there).
	Balance *privacy.Balance `json:"balance,omitempty"`
	// Step is a dry run's decision, the one the release would take now:
	// "fresh" (charge Rho and draw), "wait" (run RunID is publishing the
	// epoch), "resume" (write run RunID's stored values: no charge, no
	// draw) or "already published" (nothing to do). Refusals are errors.
	Step                  string `json:"step,omitempty"`
	Epoch                 string `json:"epoch,omitempty"`
	ReleaseID             string `json:"releaseId,omitempty"`
	Ledger                string `json:"ledger"`
	WriteProperty         string `json:"writeProperty,omitempty"`
	NodePropertiesWritten int    `json:"nodePropertiesWritten"`
	Out                   string `json:"out,omitempty"`
	// AlreadyPublished: the epoch was charged and published before; this
	// run did nothing. Resumed: this run finished publishing a
	// charged epoch's stored values (no new charge, no new draw).
	AlreadyPublished bool                        `json:"alreadyPublished"`
	Resumed          bool                        `json:"resumed"`
	ComputeMillis    int64                       `json:"computeMillis"`
	WriteMillis      int64                       `json:"writeMillis"`
	Estimate         *graphcloak.ReleaseEstimate `json:"plan,omitempty"`
	Forecast         *Forecasts                  `json:"forecast,omitempty"`
	// Smooth is the extra diffusion τ′ released (ReleaseSpec.Smooth); with
	// automatic smoothing, SmoothChoices are the candidates it was chosen from.
	Smooth        float64        `json:"smooth,omitempty"`
	SmoothChoices []SmoothChoice `json:"smoothChoices,omitempty"`

	// ExactNode is the exact node's privacy at the stated source mass
	// (ReleaseSpec.SourceMass), else at one protected unit α: a per-node
	// release protects one unit moved one hop, a heavier source less.
	ExactNode *privacy.ExactNode `json:"exactNode,omitempty"`
}
