package stores

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
)

// RunRows lists the run records of scope ("": every scope) in the
// configured database, newest first, at most last of them (0: all), as
// rows at time now (job.RunRowOf).
func RunRows(ctx context.Context, cfg *config.Config, scope string, last int, now time.Time) ([]job.RunRow, error) {
	client, err := Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer client.Close(context.WithoutCancel(ctx))
	recs, err := client.ListRuns(ctx, cfg.Neo4j.Database, scope, last)
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
func PruneRuns(ctx context.Context, cfg *config.Config, scope string, keep int, cutoff time.Time) (int, error) {
	client, err := Connect(ctx, cfg)
	if err != nil {
		return 0, err
	}
	defer client.Close(context.WithoutCancel(ctx))
	return client.PruneRuns(ctx, cfg.Neo4j.Database, scope, keep, cutoff)
}
