package main

import (
	"time"

	"github.com/graphcloak/graphcloak/connector"
)

// A run record as a row: the runs listing and the operator page of
// serve show runs alike.

// runRow is one run in the runs listing.
type runRow struct {
	RunID   string  `json:"runId"`
	Command string  `json:"command"`
	Status  string  `json:"status"`
	Scope   string  `json:"scope,omitempty"`
	Epoch   string  `json:"epoch,omitempty"`
	Sigma   float64 `json:"sigma,omitempty"`
	Rho     float64 `json:"rho,omitempty"`
	// RhoRemaining is the scope's zCDP budget left after a release.
	RhoRemaining   *float64  `json:"rhoRemaining,omitempty"`
	TopCommunity   string    `json:"topCommunity,omitempty"`
	TopProbability float64   `json:"topProbability,omitempty"`
	StartedAt      time.Time `json:"startedAt"`
	DurationMillis int64     `json:"durationMillis,omitempty"`
	SupersededBy   string    `json:"supersededBy,omitempty"`
	Error          string    `json:"error,omitempty"`
}

func runRowOf(r *connector.RunRecord, now time.Time) runRow {
	row := runRow{RunID: r.RunID, Command: r.Command, Status: r.Status, Scope: r.Scope, Epoch: r.Epoch,
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
	if left, ok := r.Extra["rhoRemaining"].(float64); ok {
		row.RhoRemaining = &left
	}
	if p, ok := r.Extra["topProbability"].(float64); ok {
		row.TopProbability = p
	}
	return row
}
