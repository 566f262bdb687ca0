package job

// State is where the publication of an epoch stands in the store. These
// are the documented states (README "Crash-safe, idempotent epochs",
// docs/neo4j.md): a release that stops at any point — an error, a signal,
// a killed process — leaves exactly one of them, and the next run of the
// epoch takes the one step NextReleaseStep gives.
type State int

const (
	// StateUntouched: nothing charged and no run record (its outputs may be
	// claimed: a claim names a kind, and the next release claims the
	// same). The next run starts afresh.
	StateUntouched State = iota
	// StateClaimed: a run record (running until its lease expires, failed or
	// interrupted), nothing charged. The next run starts afresh.
	StateClaimed
	// StateCharged: the ledger charged the epoch, its values were
	// not stored. Nothing can publish it without a new draw: the next run
	// is refused (*ChargedError), never drawn again.
	StateCharged
	// StateStored: charged, the values stored (and perhaps some nodes
	// written), the run not succeeded. The next run resumes it and writes
	// exactly those values.
	StateStored
	// StatePublished: the run succeeded: every node holds its value bound to
	// the run. The next run does nothing.
	StatePublished
)

func (s State) String() string {
	return [...]string{"untouched", "claimed", "charged, not stored", "stored", "published"}[s]
}
