// Package job is a release, a localisation and a private answer as a
// library. A ReleaseSpec (graph, parameters, outputs, ledger scope and epoch) is
// checked by PlanRelease into a ReleasePlan — the release file, the epoch's
// earlier run, affordability, the graph and its fingerprint, the Δ2
// source, and for a dry run the cost and σ (a dry run takes the same
// steps reading only, so it is refused where the release would be and
// says the step, balance and ρ of the release) — and Execute carries the plan
// out against an injected Backend (Neo4j: stores.Neo4j; tests:
// jobtest.Memory), ledger, logger, progress and clock. The dry run is the plan
// printed, so the two cannot drift; the command (release) and the
// scheduler (serve) call the same two functions. A localisation
// (LocateSpec → PlanLocate → ExecuteLocate) and a private answer
// (AnswerSpec → PlanAnswer → ExecuteAnswer) take the same shape: every
// check — output ownership, the release's fingerprint and values' digest,
// the ledger's charge being affordable — is made by the plan, before any
// run is claimed, and their dry runs (LocateSpec.DryRun) print the plan's
// Summary too.
//
// Execute orders the steps so that a run stopped anywhere leaves one of
// the documented states (State): the claim before the charge, the charge
// before any noise is drawn, the values stored before the first node is
// written, succeeded last. NextReleaseStep gives the step the next run of
// an epoch takes from the run that charged it, so a retry never draws a
// charged epoch again; TestCrashAtEveryStep crashes a release at each of its
// steps and checks both, TestAnswerCrashAtEveryStep a private answer
// (AnswerState), TestLocateCrashAtEveryStep a localisation.
package job

import (
	"time"

	"github.com/graphcloak/graphcloak/connector"
)

// ReleaseStep is what a release run of an epoch does.
type ReleaseStep int

const (
	// Fresh: no earlier run published the epoch; start a run, charge and
	// draw. (An earlier run that charged but stored nothing leaves the
	// ledger to refuse the second charge (charged), never a second draw.)
	Fresh ReleaseStep = iota
	// Wait: an earlier run is live (its lease runs) and may be publishing;
	// wait for it, then decide again.
	Wait
	// AlreadyPublished: the epoch's run succeeded; nothing to do.
	AlreadyPublished
	// Resume: the earlier run stored its values and then failed, was
	// interrupted or abandoned (or its lease expired); take it over and
	// write exactly those values — no charge, no draw.
	Resume
	// Overwritten: the epoch was published and another run wrote over its
	// values; it cannot be published again without a new charge (kind charged).
	Overwritten
	// OtherProperty: the epoch was published to another write property;
	// the caller must use that one or a new epoch (bad input).
	OtherProperty
)

func (s ReleaseStep) String() string {
	return [...]string{"fresh", "wait", "already published", "resume", "overwritten", "other property"}[s]
}

// Published reports whether prev's values can be published again
// without a new draw: stored durably, or the run succeeded.
func Published(prev *connector.RunRecord) bool {
	return prev != nil && (prev.ValuesStored || prev.Status == connector.StatusSucceeded || prev.Status == connector.StatusSuperseded)
}

// NextReleaseStep is the step of a release of an epoch whose earlier run is prev
// (nil: none) writing writeProperty, at time now.
func NextReleaseStep(prev *connector.RunRecord, writeProperty string, now time.Time) ReleaseStep {
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
