package job

import (
	"time"

	"github.com/graphcloak/graphcloak/connector"
)

// RunRow is a run record as a listing shows it: the runs command and the
// operator page of serve show runs alike.
type RunRow struct {
	RunID   string  `json:"runId"`
	Command string  `json:"command"`
	Status  string  `json:"status"`
	Scope   string  `json:"scope,omitempty"`
	Epoch   string  `json:"epoch,omitempty"`
	Sigma   float64 `json:"sigma,omitempty"`
	Rho     float64 `json:"rho,omitempty"`
	// RhoRemaining is the scope's zCDP budget left after a release.
	RhoRemaining *float64 `json:"rhoRemaining,omitempty"`
	// TopCommunity is a localisation's top-ranked community and
	// TopProbability its probability.
	TopCommunity   string  `json:"topCommunity,omitempty"`
	TopProbability float64 `json:"topProbability,omitempty"`
	// PublishedCommunity is a private answer's published community (its
	// ε-DP answer, as its run record holds it): no probability, no rank.
	PublishedCommunity string `json:"publishedCommunity,omitempty"`
	// NoiseDominated is a localisation's verdict as its run recorded it
	// (true: noise, not a finding; false: an answer; nil: no verdict, as
	// for a release), NoiseReason its sentence when noise.
	NoiseDominated *bool  `json:"noiseDominated,omitempty"`
	NoiseReason    string `json:"noiseReason,omitempty"`
	// Chance is a guess's probability of naming the source community
	// (1/communities) of a localisation.
	Chance         float64   `json:"chance,omitempty"`
	StartedAt      time.Time `json:"startedAt"`
	DurationMillis int64     `json:"durationMillis,omitempty"`
	SupersededBy   string    `json:"supersededBy,omitempty"`
	Error          string    `json:"error,omitempty"`
}

// RunRowOf is run record r as a row at time now: a running record whose
// lease expired before now shows as such.
func RunRowOf(r *connector.RunRecord, now time.Time) RunRow {
	row := RunRow{RunID: r.RunID, Command: r.Command, Status: r.Status, Scope: r.Scope, Epoch: r.Epoch,
		Sigma: r.Sigma, Rho: r.Rho, StartedAt: r.StartedAt, SupersededBy: r.SupersededBy, Error: r.Error}
	if r.Status == connector.StatusRunning && !r.LeaseExpiresAt.IsZero() && now.After(r.LeaseExpiresAt) {
		row.Status = "running (lease expired)"
	}
	if !r.FinishedAt.IsZero() && !r.StartedAt.IsZero() {
		row.DurationMillis = r.FinishedAt.Sub(r.StartedAt).Milliseconds()
	}
	if s, ok := r.Extra["topCommunity"].(string); ok {
		row.TopCommunity = s
	}
	if c, ok := r.Parameters["community"].(string); ok && r.Command == answerCommand {
		row.PublishedCommunity = c
	}
	if left, ok := r.Extra["rhoRemaining"].(float64); ok {
		row.RhoRemaining = &left
	}
	if p, ok := r.Extra["topProbability"].(float64); ok {
		row.TopProbability = p
	}
	if k, ok := r.Extra["communityCount"].(int64); ok && k > 0 {
		row.Chance = 1 / float64(k)
	}
	if noise, ok := r.Parameters["noiseDominated"].(bool); ok {
		row.NoiseDominated = &noise
		if reason, _ := r.Parameters["noiseReason"].(string); noise {
			row.NoiseReason = reason
		}
	}
	return row
}
