package connector

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// ValuesLabel is the label of the nodes that keep a release's published
// values durably (public data: node keys and grid integers r_i, never a
// true value):
//
//	(:GraphcloakReleaseValues {runId, chunk, chunks, keys: [...], grid: [...]})
const ValuesLabel = "GraphcloakReleaseValues"

// valuesChunk is the number of values per stored chunk (~1 MB per node).
const valuesChunk = 50_000

// StoreReleaseValues stores the published grid values of run runID (keys
// and r_i, in one order) in chunks, then sets valuesStored on its run
// record. Call it after the ledger was charged and before the first node
// is written: a crash after it leaves a release that ResumeRun +
// LoadReleaseValues re-publish exactly, without a new charge or a new
// draw. Re-storing the same run is idempotent. A run no longer "running"
// that stored nothing (abandoned once its lease expired, failed) is
// refused with *LeaseLostError: another run may have taken its epoch for
// lost, so its values must never be published — also when a write fails
// because of it (a process paused inside its transaction: ownedWrite).
func (c *Client) StoreReleaseValues(ctx context.Context, database, runID string, keys []string, grid []int64) error {
	if len(keys) != len(grid) || len(keys) == 0 {
		return &ArgumentError{Param: "release values", Value: len(grid), Reason: fmt.Sprintf("must be one grid value per key (%d keys), at least one", len(keys))}
	}
	db, err := c.db(database)
	if err != nil {
		return err
	}
	if err := c.ensureConstraints(ctx, db); err != nil {
		return err
	}
	chunks := (len(keys) + valuesChunk - 1) / valuesChunk
	return c.ownedWrite(ctx, db, runID, true, func() error {
		for i := 0; i < chunks; i++ {
			lo, hi := i*valuesChunk, min((i+1)*valuesChunk, len(keys))
			if _, err := c.exec(ctx, db, "store release values",
				"MERGE (v:"+ValuesLabel+" {runId: $id, chunk: $chunk}) SET v.chunks = $chunks, v.keys = $keys, v.grid = $grid",
				map[string]any{"id": runID, "chunk": int64(i), "chunks": int64(chunks), "keys": keys[lo:hi], "grid": grid[lo:hi]}); err != nil {
				return err
			}
		}
		recs, err := c.exec(ctx, db, "mark release values stored",
			"OPTIONAL MATCH (r:"+RunRecordLabel+" {runId: $id}) "+
				"FOREACH (_ IN CASE WHEN r.status = 'running' OR r.valuesStored THEN [1] ELSE [] END | SET r.valuesStored = true, r.valuesCount = $n) "+
				"RETURN r IS NOT NULL, r.status, coalesce(r.valuesStored, false), r.leaseExpiresAt",
			map[string]any{"id": runID, "n": int64(len(keys))})
		if err != nil {
			return err
		}
		v := recs[0].Values
		if found, _ := v[0].(bool); !found {
			return &RunNotFoundError{RunID: runID, Database: db}
		}
		if stored, _ := v[2].(bool); !stored {
			return leaseLost(runID, v[1], v[3]) // taken for dead: its values publish nothing
		}
		return nil
	})
}

// LoadReleaseValues returns the values StoreReleaseValues stored for
// runID, in the stored order. A missing or incomplete set is a *DataError.
func (c *Client) LoadReleaseValues(ctx context.Context, database, runID string) ([]string, []int64, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, nil, err
	}
	type out struct {
		keys []string
		grid []int64
	}
	o, err := runRead(ctx, c, db, "load release values", func(ctx context.Context, tx neo4j.ManagedTransaction) (out, error) {
		res, err := tx.Run(ctx, "MATCH (v:"+ValuesLabel+" {runId: $id}) RETURN v.chunk, v.chunks, v.keys, v.grid ORDER BY v.chunk",
			map[string]any{"id": runID})
		if err != nil {
			return out{}, err
		}
		var o out
		want, seen := int64(-1), int64(0)
		for res.Next(ctx) {
			v := res.Record().Values
			chunk, _ := v[0].(int64)
			chunks, _ := v[1].(int64)
			ks, _ := v[2].([]any)
			gs, _ := v[3].([]any)
			if chunk != seen || (want >= 0 && chunks != want) || len(ks) != len(gs) {
				return out{}, &DataError{Reason: fmt.Sprintf("stored release values of run %q are inconsistent (chunk %d)", runID, chunk), Count: 1}
			}
			want = chunks
			seen++
			for i := range ks {
				k, ok1 := ks[i].(string)
				g, ok2 := gs[i].(int64)
				if !ok1 || !ok2 {
					return out{}, &DataError{Reason: fmt.Sprintf("stored release values of run %q are not keys and integers", runID), Count: 1}
				}
				o.keys = append(o.keys, k)
				o.grid = append(o.grid, g)
			}
		}
		if err := res.Err(); err != nil {
			return out{}, err
		}
		if seen == 0 || seen != want {
			return out{}, &DataError{Reason: fmt.Sprintf("run %q has %d of %d chunks of stored release values", runID, seen, max(want, 1)), Count: 1}
		}
		return o, nil
	})
	return o.keys, o.grid, err
}
