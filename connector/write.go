package connector

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// DefaultBatchSize is the number of nodes per write transaction.
const DefaultBatchSize = 10_000

// NodeProps are the properties to set on one node.
type NodeProps struct {
	// Key selects the node: its NodeKeyProperty value (as read by
	// ReadGraph, i.e. Graph.Key) or, when the projection has no key
	// property, its elementId.
	Key string
	// Props maps property names (validated identifiers) to values: bool,
	// int64, float64 (finite), string, or homogeneous slices of those.
	Props map[string]any
}

// WriteOptions control WriteProperties. The zero value means the defaults.
type WriteOptions struct {
	// BatchSize is the number of nodes per write transaction. Default
	// DefaultBatchSize (10000).
	BatchSize int
	// Concurrency is the number of batches written in parallel, each in
	// its own transaction (GDS writeConcurrency). Default 1: batches are
	// committed in order. Rows must name distinct nodes when > 1.
	Concurrency int
	// Progress, when set, is called after every committed batch with the
	// number of nodes written so far and the total (never concurrently).
	Progress func(done, total int)
	// RunID and BindProperty, when both set, bind the values to the run:
	// every node written also gets RunIDProperty(BindProperty) = RunID in
	// the same SET, and every other run whose id that property held on a
	// node of the batch is marked "superseded" (supersededBy = RunID) in
	// the batch's transaction. BindProperty is normally the property the
	// run writes its values to (RunRecord.WriteProperty).
	RunID, BindProperty string
}

// WriteStats summarise a write-back in GDS terms.
type WriteStats struct {
	NodesWritten          int   `json:"nodesWritten"`
	NodePropertiesWritten int   `json:"nodePropertiesWritten"`
	Batches               int   `json:"batches"`
	WriteMillis           int64 `json:"writeMillis"`
}

// WriteProperties sets rows' properties on the nodes they name, in batches
// of opt.BatchSize nodes, each batch one managed write transaction:
//
//	UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.id SET n += row.props
//
// Values and property names travel as parameters (the names are still
// validated as identifiers, so what is written can be read back through a
// Projection). SET is idempotent, so a retried batch or a re-run writes
// the same values. With a NodeKeyProperty, keys are first resolved to
// element ids by one streaming read of the projection's nodes; an unknown
// key is a *DataError before anything is written. A node deleted while
// writing is a *DataError naming the batch; batches committed before a
// failure stay committed (the run record, written last, tells whether
// the whole run succeeded).
func (c *Client) WriteProperties(ctx context.Context, p Projection, rows []NodeProps, opt WriteOptions) (WriteStats, error) {
	start := time.Now()
	var st WriteStats
	bs := opt.BatchSize
	if bs == 0 {
		bs = DefaultBatchSize
	}
	if bs < 0 {
		return st, &ArgumentError{Param: "batch size", Value: bs, Reason: "must be > 0"}
	}
	cp, err := p.compile()
	if err != nil {
		return st, err
	}
	db, err := c.db(p.Database)
	if err != nil {
		return st, err
	}
	// Validate everything before the first write.
	if err := checkWrite(rows, opt); err != nil {
		return st, err
	}
	ids, err := c.elementIDs(ctx, db, p, cp, rows)
	if err != nil {
		return st, err
	}
	err = c.writeBatches(ctx, db, rows, ids, bs, opt, &st)
	st.WriteMillis = time.Since(start).Milliseconds()
	return st, err
}

// checkWrite validates the write options and every row: property names
// are identifiers, numbers are finite.
func checkWrite(rows []NodeProps, opt WriteOptions) error {
	if (opt.RunID == "") != (opt.BindProperty == "") {
		return &ArgumentError{Param: "write options", Reason: "RunID and BindProperty go together"}
	}
	if opt.BindProperty != "" {
		if err := CheckWriteProperty(opt.BindProperty); err != nil {
			return err
		}
	}
	var bad examples
	for i := range rows {
		for k, v := range rows[i].Props {
			if err := CheckIdentifier("property", k); err != nil {
				return err
			}
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				bad.add(fmt.Sprintf("%s.%s=%v", rows[i].Key, k, f))
			}
		}
	}
	if bad.count > 0 {
		return &DataError{Reason: "property values are not finite numbers (Neo4j would store NaN/Inf)",
			Count: bad.count, Examples: bad.names}
	}
	return nil
}

// elementIDs returns the element id of each row's node: the row key itself
// without a NodeKeyProperty, else the node with that key (an unknown key
// is a *DataError).
func (c *Client) elementIDs(ctx context.Context, db string, p Projection, cp *compiled, rows []NodeProps) ([]string, error) {
	ids := make([]string, len(rows))
	if cp.key == "" {
		for i := range rows {
			ids[i] = rows[i].Key
		}
		return ids, nil
	}
	index, err := c.keyIndex(ctx, db, p, cp)
	if err != nil {
		return nil, err
	}
	var unknown examples
	for i := range rows {
		id, ok := index[rows[i].Key]
		if !ok {
			unknown.add(rows[i].Key)
		}
		ids[i] = id
	}
	if unknown.count > 0 {
		return nil, &DataError{Property: p.NodeKeyProperty, Reason: "rows name keys that match no node of the projection",
			Count: unknown.count, Examples: unknown.names}
	}
	return ids, nil
}

// writeBatches writes the rows in batches of bs on opt.Concurrency
// workers, counting what was committed in st. The first failure cancels
// the batches not yet started and is returned.
func (c *Client) writeBatches(ctx context.Context, db string, rows []NodeProps, ids []string, bs int, opt WriteOptions, st *WriteStats) error {
	conc := max(1, opt.Concurrency)
	nb := (len(rows) + bs - 1) / bs
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	for w := 0; w < min(conc, nb); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				lo := b * bs
				hi := min(lo+bs, len(rows))
				props, err := c.writeBatch(wctx, db, rows[lo:hi], ids[lo:hi], lo, opt)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
						cancel()
					}
				} else {
					st.Batches++
					st.NodesWritten += hi - lo
					st.NodePropertiesWritten += props
					if opt.Progress != nil {
						opt.Progress(st.NodesWritten, len(rows))
					}
				}
				mu.Unlock()
			}
		}()
	}
dispatch:
	for b := 0; b < nb; b++ {
		select {
		case next <- b:
		case <-wctx.Done():
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = fmt.Errorf("connector: write properties: %w", ctx.Err())
	}
	return firstErr
}

// writeQuery sets one batch of properties, selecting nodes by element id
// (a NodeByElementIdSeek per row). A bookkeeping node is never matched
// (notBookkeeping), so an element id naming one counts as a missing node.
var writeQuery = "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.id AND " + notBookkeeping("n") +
	" SET n += row.props RETURN count(n) AS matched"

// bindQuery is writeQuery for a run-bound write: the run id is set with
// the values, and the runs whose values it replaces are marked superseded.
var bindQuery = "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.id AND " + notBookkeeping("n") + " " +
	"WITH n, row, n[$bind] AS prev SET n += row.props " +
	"WITH count(n) AS matched, collect(DISTINCT prev) AS prevs " +
	"CALL { WITH prevs " + supersede("prevs") + " RETURN count(r) AS superseded } " +
	"RETURN matched"

// writeBatch writes rows (whose element ids are ids) in one managed write
// transaction and returns the number of properties written. lo is the
// batch's first row, for error messages.
func (c *Client) writeBatch(ctx context.Context, db string, rows []NodeProps, ids []string, lo int, opt WriteOptions) (int, error) {
	batch := make([]any, len(rows))
	props := 0
	query := writeQuery
	params := map[string]any{}
	bind := ""
	if opt.RunID != "" {
		query, bind = bindQuery, RunIDProperty(opt.BindProperty)
		params["bind"], params["run"] = bind, opt.RunID
	}
	for i := range rows {
		p := rows[i].Props
		if bind != "" {
			p = make(map[string]any, len(rows[i].Props)+1)
			for k, v := range rows[i].Props {
				p[k] = v
			}
			p[bind] = opt.RunID
		}
		batch[i] = map[string]any{"id": ids[i], "props": p}
		props += len(rows[i].Props) // the run id is bookkeeping, not a result
	}
	params["rows"] = batch
	matched, err := runWrite(ctx, c, db, "write properties", func(ctx context.Context, tx neo4j.ManagedTransaction) (int64, error) {
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return 0, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return 0, err
		}
		n, _ := rec.Values[0].(int64)
		return n, nil
	})
	if err != nil {
		return 0, err
	}
	if int(matched) != len(rows) {
		return 0, &DataError{Reason: fmt.Sprintf("nodes of rows %d..%d no longer exist (the graph changed since it was read)", lo, lo+len(rows)-1),
			Count: len(rows) - int(matched)}
	}
	return props, nil
}

// keyIndex maps NodeKeyProperty values of the projection's nodes to their
// element ids, in one streaming read.
func (c *Client) keyIndex(ctx context.Context, db string, p Projection, cp *compiled) (map[string]string, error) {
	query := "MATCH " + cp.nodeMatch("n") + " WHERE n." + cp.key + " IS NOT NULL RETURN n." + cp.key + " AS key, elementId(n) AS id"
	return runRead(ctx, c, db, "resolve node keys", func(ctx context.Context, tx neo4j.ManagedTransaction) (map[string]string, error) {
		res, err := tx.Run(ctx, query, nil)
		if err != nil {
			return nil, err
		}
		m := map[string]string{}
		for res.Next(ctx) {
			vals := res.Record().Values
			k, ok := keyString(vals[0])
			if !ok {
				continue
			}
			id, _ := vals[1].(string)
			m[k] = id
		}
		return m, res.Err()
	})
}
