package stores

import (
	"time"

	"github.com/graphcloak/graphcloak/errkind"
)

// Parameters a prune of the run records names (errkind.Param).
const (
	ParamKeep      errkind.Param = "keep"
	ParamOlderThan errkind.Param = "older-than"
)

// PruneRequest is which finished run records to delete (Stores.PruneRuns):
// those beyond the newest Keep, when KeepGiven, and those started more
// than OlderThan ago, when OlderGiven.
type PruneRequest struct {
	Keep                  int
	OlderThan             time.Duration
	KeepGiven, OlderGiven bool
}

// Check refuses a request that selects nothing or counts backwards, and
// returns how many finished records to keep: Keep, or -1 (no count limit)
// when it was not given.
func (r PruneRequest) Check() (int, error) {
	switch {
	case !r.KeepGiven && !r.OlderGiven:
		return 0, errkind.Usagef("give %s N or %s DURATION (or both)", ParamKeep, ParamOlderThan)
	case r.KeepGiven && r.Keep < 0:
		return 0, errkind.Inputf("%s must be ≥ 0, got %d", ParamKeep, r.Keep)
	case r.OlderThan < 0:
		return 0, errkind.Inputf("%s and %s must not be negative", ParamKeep, ParamOlderThan)
	case !r.KeepGiven:
		return -1, nil
	}
	return r.Keep, nil
}

// Cutoff is the start before which a finished record is deleted: OlderThan
// before now, or the zero time (none) without an age.
func (r PruneRequest) Cutoff(now time.Time) time.Time {
	if r.OlderThan > 0 {
		return now.Add(-r.OlderThan)
	}
	return time.Time{}
}
