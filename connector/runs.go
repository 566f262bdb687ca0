package connector

import (
	"context"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// ListRuns returns run records, newest first (by startedAt), at most limit
// of them (0: all), only those of scope when scope is not "". Records
// left running whose lease has expired are reported as such by their
// LeaseExpiresAt; AbandonExpired marks them.
func (c *Client) ListRuns(ctx context.Context, database, scope string, limit int) ([]*RunRecord, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	q := "MATCH (r:" + RunRecordLabel + ") WHERE $scope = '' OR r.scope = $scope " +
		"RETURN properties(r) AS p ORDER BY r.startedAt DESC, r.runId DESC"
	params := map[string]any{"scope": scope}
	if limit > 0 {
		q += " LIMIT $limit"
		params["limit"] = int64(limit)
	}
	return runRead(ctx, c, db, "list runs", func(ctx context.Context, tx neo4j.ManagedTransaction) ([]*RunRecord, error) {
		res, err := tx.Run(ctx, q, params)
		if err != nil {
			return nil, err
		}
		var out []*RunRecord
		for res.Next(ctx) {
			p, _ := res.Record().Values[0].(map[string]any)
			r := runRecordFrom(p)
			r.Database = db
			out = append(out, r)
		}
		return out, res.Err()
	})
}

// PruneRuns deletes finished run records — never a running one, never the
// ledger — keeping the newest keep of them (keep < 0: no count limit)
// and those started at or after olderThan (zero: no age limit), only of
// scope when scope is not "", with the
// release values stored for the deleted runs. It returns how many records
// it deleted. A pruned release's epoch can no longer be re-run as a no-op:
// its ledger charge remains, so a retry of it exits 7.
func (c *Client) PruneRuns(ctx context.Context, database, scope string, keep int, olderThan time.Time) (int, error) {
	db, err := c.db(database)
	if err != nil {
		return 0, err
	}
	// The newest succeeded release of each scope and write property is the
	// one whose values are on the nodes (bound by their run id): never
	// pruned, whatever --keep says.
	q := "OPTIONAL MATCH (p:" + RunRecordLabel + " {command: 'release', status: '" + StatusSucceeded + "'}) " +
		"WITH p ORDER BY p.startedAt DESC, p.runId DESC " +
		"WITH p.scope AS sc, p.writeProperty AS wp, collect(p.runId)[0] AS published " +
		"WITH collect(published) AS published " +
		"MATCH (r:" + RunRecordLabel + ") WHERE r.status <> '" + StatusRunning + "' AND ($scope = '' OR r.scope = $scope) " +
		"AND NOT r.runId IN published " +
		"WITH r ORDER BY r.startedAt DESC, r.runId DESC " +
		"WITH collect(r) AS rs " +
		"UNWIND range(0, size(rs) - 1) AS i WITH rs[i] AS r, i " +
		"WHERE ($keep >= 0 AND i >= $keep) OR ($cutoff IS NOT NULL AND r.startedAt < $cutoff) " +
		"OPTIONAL MATCH (v:" + ValuesLabel + " {runId: r.runId}) " +
		"DETACH DELETE v WITH DISTINCT r DETACH DELETE r RETURN count(r) AS n"
	params := map[string]any{"keep": int64(keep), "cutoff": nil, "scope": scope}
	if !olderThan.IsZero() {
		params["cutoff"] = olderThan.UTC()
	}
	recs, err := c.exec(ctx, db, "prune runs", q, params)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	n, _ := recs[0].Values[0].(int64)
	return int(n), nil
}
