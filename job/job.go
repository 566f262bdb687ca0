// Package job holds what a release decides without a database: the step a
// run of an epoch takes given the run that charged the epoch before it.
// Every state a crashed or concurrent run can leave behind (see
// writeback: values stored before the first node is written, succeeded
// last) maps to exactly one step, so a retry never draws a charged epoch
// again. It is the first piece of the plan → execute split of issue 33;
// the command (cmd/graphcloak release) asks Next and carries the step out.
package job

import (
	"time"

	"github.com/graphcloak/graphcloak/connector"
)

// Step is what a release run of an epoch does.
type Step int

const (
	// Fresh: no earlier run published the epoch; start a run, charge and
	// draw. (An earlier run that charged but stored nothing leaves the
	// ledger to refuse the second charge: exit 7, never a second draw.)
	Fresh Step = iota
	// Wait: an earlier run is live (its lease runs) and may be publishing;
	// wait for it, then decide again.
	Wait
	// AlreadyPublished: the epoch's run succeeded; nothing to do (exit 0).
	AlreadyPublished
	// Resume: the earlier run stored its values and then failed, was
	// interrupted or abandoned (or its lease expired); take it over and
	// write exactly those values — no charge, no draw.
	Resume
	// Overwritten: the epoch was published and another run wrote over its
	// values; it cannot be published again without a new charge (exit 7).
	Overwritten
	// OtherProperty: the epoch was published to another write property;
	// the caller must use that one or a new epoch (exit 3).
	OtherProperty
)

func (s Step) String() string {
	return [...]string{"fresh", "wait", "already published", "resume", "overwritten", "other property"}[s]
}

// Published reports whether prev's values can be published again
// without a new draw: stored durably, or the run succeeded.
func Published(prev *connector.RunRecord) bool {
	return prev != nil && (prev.ValuesStored || prev.Status == connector.StatusSucceeded || prev.Status == connector.StatusSuperseded)
}

// Next is the step of a release of an epoch whose earlier run is prev
// (nil: none) writing writeProperty, at time now.
func Next(prev *connector.RunRecord, writeProperty string, now time.Time) Step {
	switch {
	case !Published(prev):
		return Fresh
	case prev.Status == connector.StatusRunning && prev.LeaseExpiresAt.After(now):
		return Wait
	case prev.WriteProperty != writeProperty:
		return OtherProperty
	case prev.Status == connector.StatusSucceeded:
		return AlreadyPublished
	case prev.Status == connector.StatusSuperseded:
		return Overwritten
	}
	return Resume
}
