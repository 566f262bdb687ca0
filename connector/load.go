package connector

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// LoadSpec names what Load creates: nodes of one label keyed by one
// property, relationships of one type between them with an optional weight
// property, and an optional reading property on the nodes.
type LoadSpec struct {
	Label, RelationshipType, KeyProperty string
	// WeightProperty, when set, receives each relationship's weight.
	WeightProperty string
	// ValueProperty, when set, receives each node's reading (Values).
	ValueProperty string
	// BatchSize is the number of rows per write transaction (default
	// DefaultBatchSize).
	BatchSize int
}

// Validate checks every name of s without contacting the server: the
// label and relationship type are the user's (graphcloak's own are
// refused with *OwnedLabelError, CheckOwnership) and every name is an
// identifier (*IdentifierError).
func (s LoadSpec) Validate() error {
	for _, n := range []struct{ kind, name string }{{"label", s.Label}, {"relationship type", s.RelationshipType}} {
		if _, err := quoteUser(n.kind, n.name); err != nil {
			return err
		}
	}
	for _, n := range []struct{ kind, name string }{{"node key property", s.KeyProperty},
		{"relationship weight property", s.WeightProperty}, {"value property", s.ValueProperty}} {
		if n.name == "" && n.kind != "node key property" {
			continue
		}
		if err := CheckIdentifier(n.kind, n.name); err != nil {
			return err
		}
	}
	return nil
}

// LoadEdge is one relationship to load, between two node keys.
type LoadEdge struct {
	Source, Target string
	Weight         float64
}

// LoadStats summarise a load in GDS terms.
type LoadStats struct {
	NodesLoaded         int   `json:"nodeCount"`
	RelationshipsLoaded int   `json:"relationshipCount"`
	ValuesWritten       int   `json:"nodePropertiesWritten"`
	IntegerKeys         bool  `json:"integerKeys"`
	WriteMillis         int64 `json:"writeMillis"`
}

// Load writes a graph into database idempotently (MERGE on the key, on the
// relationship between two keyed nodes; SET of the weight and the
// reading), in batches of managed write transactions, so that a rerun
// after a failure converges to the same graph. Keys that all parse as
// 64-bit integers are stored as integers (as a Cypher load would), others
// as strings; ReadGraph reads both back as the same keys. Names are
// validated and backtick-quoted; every value is a parameter. The label and
// type must be the user's (CheckOwnership), and the key and value
// properties are claimed in the output registry (ClaimOutputs, as raw
// inputs) before the first write: a property holding a run's outputs is
// refused with *OutputOwnedError and nothing is written.
func (c *Client) Load(ctx context.Context, database string, spec LoadSpec, edges []LoadEdge, values map[string]float64) (*LoadStats, error) {
	start := time.Now()
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	label, _ := quoteUser("label", spec.Label)
	rel, _ := quoteUser("relationship type", spec.RelationshipType)
	key, _ := Quote("node key property", spec.KeyProperty)
	// The output registry, before anything is written: the key and the
	// readings go only where no run's outputs (release values, run ids,
	// community ids…) are registered, as ClaimOutputs refuses any writer.
	claims := Claims{Outputs: map[string]string{spec.KeyProperty: KindNodeKey}}
	if spec.ValueProperty != "" {
		claims.Outputs[spec.ValueProperty] = KindReadings
	}
	if err := c.ClaimOutputs(ctx, database, "", "load", claims); err != nil {
		return nil, err
	}
	batch := spec.BatchSize
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	keys := loadKeys(edges, values)
	asInt := allIntegers(keys)
	st := &LoadStats{IntegerKeys: asInt}
	conv := func(k string) any {
		if asInt {
			v, _ := strconv.ParseInt(k, 10, 64)
			return v
		}
		return k
	}
	// Nodes.
	nodes := make([]any, len(keys))
	for i, k := range keys {
		nodes[i] = conv(k)
	}
	if err := c.loadBatches(ctx, db, "load nodes", fmt.Sprintf("UNWIND $rows AS k MERGE (:%s {%s: k})", label, key), nodes, batch); err != nil {
		return nil, err
	}
	st.NodesLoaded = len(keys)
	// Relationships.
	set := ""
	if spec.WeightProperty != "" {
		w, _ := Quote("relationship weight property", spec.WeightProperty)
		set = " SET r." + w + " = row.w"
	}
	rows := make([]any, len(edges))
	for i, e := range edges {
		rows[i] = map[string]any{"s": conv(e.Source), "t": conv(e.Target), "w": e.Weight}
	}
	q := fmt.Sprintf("UNWIND $rows AS row MATCH (a:%s {%s: row.s}), (b:%s {%s: row.t}) MERGE (a)-[r:%s]->(b)%s", label, key, label, key, rel, set)
	if err := c.loadBatches(ctx, db, "load relationships", q, rows, batch); err != nil {
		return nil, err
	}
	st.RelationshipsLoaded = len(edges)
	// Readings.
	if spec.ValueProperty != "" && len(values) > 0 {
		v, _ := Quote("value property", spec.ValueProperty)
		rows := make([]any, 0, len(values))
		for _, k := range keys {
			if x, ok := values[k]; ok {
				rows = append(rows, map[string]any{"k": conv(k), "v": x})
			}
		}
		q := fmt.Sprintf("UNWIND $rows AS row MATCH (n:%s {%s: row.k}) SET n.%s = row.v", label, key, v)
		if err := c.loadBatches(ctx, db, "load values", q, rows, batch); err != nil {
			return nil, err
		}
		st.ValuesWritten = len(rows)
	}
	st.WriteMillis = time.Since(start).Milliseconds()
	return st, nil
}

// loadBatches runs query once per batch of rows, each in a managed write
// transaction (retried: the queries are MERGE/SET, idempotent).
func (c *Client) loadBatches(ctx context.Context, db, op, query string, rows []any, batch int) error {
	for lo := 0; lo < len(rows); lo += batch {
		hi := min(lo+batch, len(rows))
		if _, err := runWrite(ctx, c, db, op, func(ctx context.Context, tx neo4j.ManagedTransaction) (struct{}, error) {
			res, err := tx.Run(ctx, query, map[string]any{"rows": rows[lo:hi]})
			if err != nil {
				return struct{}{}, err
			}
			_, err = res.Consume(ctx)
			return struct{}{}, err
		}); err != nil {
			return err
		}
	}
	return nil
}

// loadKeys returns every node key of the edges and the readings, each
// once, in first-seen order.
func loadKeys(edges []LoadEdge, values map[string]float64) []string {
	seen := map[string]bool{}
	var keys []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, e := range edges {
		add(e.Source)
		add(e.Target)
	}
	extra := make([]string, 0, len(values))
	for k := range values {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	return append(keys, extra...)
}

func allIntegers(keys []string) bool {
	for _, k := range keys {
		// Only canonical integers: "007" stays a string, so it reads back as "007".
		if v, err := strconv.ParseInt(k, 10, 64); err != nil || strconv.FormatInt(v, 10) != k {
			return false
		}
	}
	return len(keys) > 0
}
