package stores

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/job"
)

// RunRows lists the run records of scope ("": every scope) in the
// configured database through the stores' connection, newest first, at
// most last of them (0: all), as rows at time now (job.RunRowOf).
func (s *Stores) RunRows(ctx context.Context, scope string, last int, now time.Time) ([]job.RunRow, error) {
	if s.Client == nil {
		return nil, errNotConnected
	}
	recs, err := s.Client.ListRuns(ctx, s.cfg.Neo4j.Database, scope, last)
	if err != nil {
		return nil, err
	}
	rows := make([]job.RunRow, len(recs))
	for i, r := range recs {
		rows[i] = job.RunRowOf(r, now)
	}
	return rows, nil
}

// PruneRuns deletes the finished run records of scope ("": every scope)
// in the configured database beyond the newest keep (-1: no count limit)
// or started before cutoff (zero: no age limit), and returns how many it
// deleted (connector.Client.PruneRuns).
func (s *Stores) PruneRuns(ctx context.Context, scope string, keep int, cutoff time.Time) (int, error) {
	if s.Client == nil {
		return 0, errNotConnected
	}
	return s.Client.PruneRuns(ctx, s.cfg.Neo4j.Database, scope, keep, cutoff)
}
