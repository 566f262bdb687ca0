package connector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphcloak/graphcloak/laplacian"
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
	// Isolated are keys of nodes without edges, loaded as nodes alone.
	Isolated []string
	// BatchSize is the number of rows per write transaction (default
	// DefaultBatchSize).
	BatchSize int
	// Progress, when set, is called after every committed batch with the
	// stage ("nodes", "relationships", "readings"), the rows written so
	// far and the stage's total.
	Progress func(stage string, done, total int)
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
	NodesLoaded         int  `json:"nodeCount"`
	RelationshipsLoaded int  `json:"relationshipCount"`
	ValuesWritten       int  `json:"nodePropertiesWritten"`
	IntegerKeys         bool `json:"integerKeys"`
	// KeyIndex is what makes the key's MERGE a lookup: "constraint" (a
	// uniqueness constraint, created or already there) or "index" (the
	// stored keys are not unique, or an index was there first).
	KeyIndex    string `json:"keyIndex"`
	WriteMillis int64  `json:"writeMillis"`
}

// LoadKeyError reports node keys a load refuses before writing: not
// valid UTF-8 (Neo4j would store a replacement character, and two such
// keys would become one node), or of two types — integer keys beside
// others, in the files or against the keys already stored under the label
// (an integer 101 and a string "101" are two nodes).
type LoadKeyError struct {
	Key    string // the first key refused (invalid bytes escaped)
	Reason string
}

func (e *LoadKeyError) Error() string {
	return fmt.Sprintf("connector: node key %q: %s", e.Key, e.Reason)
}

func (*LoadKeyError) connectorError() {}

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
	// The keys, before anything is written: UTF-8, of one type, of the
	// stored keys' type.
	keys := loadKeys(edges, spec.Isolated, values)
	asInt, err := keyType(keys)
	if err != nil {
		return nil, err
	}
	if asInt, err = c.storedKeyType(ctx, db, label, key, keys, asInt); err != nil {
		return nil, err
	}
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
	st := &LoadStats{IntegerKeys: asInt}
	if st.KeyIndex, err = c.keyConstraint(ctx, db, label, key); err != nil {
		return nil, err
	}
	batch := spec.BatchSize
	if batch <= 0 {
		batch = DefaultBatchSize
	}
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
	if err := c.loadBatches(ctx, db, "load nodes", fmt.Sprintf("UNWIND $rows AS k MERGE (:%s {%s: k})", label, key), nodes, batch,
		progress(spec.Progress, "nodes")); err != nil {
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
	// An undirected edge is one relationship: MERGE without a direction
	// finds it stored either way (and creates it a→b when there is none).
	// When no relationship of the type touches the label yet (a first
	// load), CREATE does the same at a fraction of the cost: the edges of
	// the files are distinct undirected pairs (the CSV reader merged
	// repeats; checked), so nothing can be created twice. A rerun after an
	// interrupted first load finds relationships, and merges.
	fresh, err := c.noRelationships(ctx, db, label, rel)
	if err != nil {
		return nil, err
	}
	write := "MERGE (a)-[r:%s]-(b)"
	if fresh && distinctPairs(edges) {
		write = "CREATE (a)-[r:%s]->(b)"
	}
	q := fmt.Sprintf("UNWIND $rows AS row MATCH (a:%s {%s: row.s}) MATCH (b:%s {%s: row.t}) "+write+"%s", label, key, label, key, rel, set)
	if err := c.loadBatches(ctx, db, "load relationships", q, rows, batch, progress(spec.Progress, "relationships")); err != nil {
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
		if err := c.loadBatches(ctx, db, "load values", q, rows, batch, progress(spec.Progress, "readings")); err != nil {
			return nil, err
		}
		st.ValuesWritten = len(rows)
	}
	st.WriteMillis = time.Since(start).Milliseconds()
	return st, nil
}

// loadBatches runs query once per batch of rows, each in a managed write
// transaction (retried: the queries are MERGE/SET, idempotent).
func (c *Client) loadBatches(ctx context.Context, db, op, query string, rows []any, batch int, done func(done, total int)) error {
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
		done(hi, len(rows))
	}
	return nil
}

// distinctPairs reports whether no two edges join the same two keys
// (in either direction).
func distinctPairs(edges []LoadEdge) bool {
	seen := make(map[[2]string]struct{}, len(edges))
	for _, e := range edges {
		p := [2]string{e.Source, e.Target}
		if p[1] < p[0] {
			p[0], p[1] = p[1], p[0]
		}
		if _, dup := seen[p]; dup {
			return false
		}
		seen[p] = struct{}{}
	}
	return true
}

// noRelationships reports whether no relationship of type rel touches a
// node of label (both quoted).
func (c *Client) noRelationships(ctx context.Context, db, label, rel string) (bool, error) {
	return runRead(ctx, c, db, "look for stored relationships", func(ctx context.Context, tx neo4j.ManagedTransaction) (bool, error) {
		res, err := tx.Run(ctx, fmt.Sprintf("MATCH (:%s)-[r:%s]-() RETURN 1 LIMIT 1", label, rel), nil)
		if err != nil {
			return false, err
		}
		found := res.Next(ctx)
		return !found, res.Err()
	})
}

// progress adapts LoadSpec.Progress to one stage (a no-op without one).
func progress(p func(stage string, done, total int), stage string) func(done, total int) {
	if p == nil {
		return func(int, int) {}
	}
	return func(done, total int) { p(stage, done, total) }
}

// keyType checks the keys of a load: valid UTF-8, and of one type —
// all integer-like (digits with an optional sign) or none. It reports
// whether they are stored as integers (all canonical integers: "007"
// stays a string, so it reads back as "007").
func keyType(keys []string) (bool, error) {
	for _, k := range keys {
		if !utf8.ValidString(k) {
			return false, &LoadKeyError{Key: k, Reason: "is not valid UTF-8 (Neo4j would store a replacement character, and such keys would become one node)"}
		}
	}
	// The file graph's rule (laplacian.CheckKeyTypes): what load refuses,
	// --graph file: refuses alike.
	var kt *laplacian.KeyTypeError
	if err := laplacian.CheckKeyTypes(keys); errors.As(err, &kt) {
		return false, &LoadKeyError{Key: kt.Key, Reason: kt.Reason()}
	}
	return allIntegers(keys), nil
}

// storedKeyType reconciles asInt with the keys already stored under the
// label: integer keys stored, and this load's are not all integers, is a
// *LoadKeyError (they would be new nodes beside the old); string keys
// stored, and this load's are integers, stores them as strings.
func (c *Client) storedKeyType(ctx context.Context, db, label, key string, keys []string, asInt bool) (bool, error) {
	type value struct{ v any } // ExecuteRead cannot return a nil interface
	stored, err := runRead(ctx, c, db, "read the stored key type", func(ctx context.Context, tx neo4j.ManagedTransaction) (value, error) {
		res, err := tx.Run(ctx, fmt.Sprintf("MATCH (n:%s) WHERE n.%s IS NOT NULL RETURN n.%s LIMIT 1", label, key, key), nil)
		if err != nil {
			return value{}, err
		}
		if res.Next(ctx) {
			return value{res.Record().Values[0]}, nil
		}
		return value{}, res.Err()
	})
	if err != nil {
		return false, err
	}
	switch v := stored.v.(type) {
	case int64:
		if !asInt {
			for _, k := range keys {
				if n, err := strconv.ParseInt(k, 10, 64); err != nil || strconv.FormatInt(n, 10) != k {
					return false, &LoadKeyError{Key: k, Reason: fmt.Sprintf("is not an integer, and the keys stored under this label are integers (e.g. %d): "+
						"it would be a new node beside them", v)}
				}
			}
		}
	case string:
		return false, nil
	}
	return asInt, nil
}

// keyConstraint makes the key's MERGE a lookup: a uniqueness constraint on
// (label, key), created if missing, else (stored duplicates, or an index
// there first) a range index; it waits until the index is online.
func (c *Client) keyConstraint(ctx context.Context, db, label, key string) (string, error) {
	kind := "constraint"
	if _, err := c.exec(ctx, db, "create the key constraint",
		fmt.Sprintf("CREATE CONSTRAINT IF NOT EXISTS FOR (n:%s) REQUIRE n.%s IS UNIQUE", label, key), nil); err != nil {
		kind = "index"
		if _, err := c.exec(ctx, db, "create the key index", fmt.Sprintf("CREATE INDEX IF NOT EXISTS FOR (n:%s) ON (n.%s)", label, key), nil); err != nil {
			return "", err
		}
	}
	// Await this key's index only. db.awaitIndexes waits for every index of
	// the database while holding their schema locks, so two loads creating
	// constraints on different labels at once blocked each other until the
	// transaction timeout (one exited 4 after 2 min in TestInjectionCorpus).
	params := map[string]any{"l": strings.Trim(label, "`"), "k": strings.Trim(key, "`")}
	res, err := c.exec(ctx, db, "find the key index",
		"SHOW INDEXES YIELD name, labelsOrTypes, properties WHERE labelsOrTypes = [$l] AND properties = [$k] RETURN name", params)
	if err != nil {
		return "", err
	}
	for _, r := range res {
		if _, err := c.exec(ctx, db, "await the key index", "CALL db.awaitIndex($name, 300)", map[string]any{"name": r.Values[0]}); err != nil {
			return "", err
		}
	}
	return kind, nil
}

// loadKeys returns every node key of the edges and the readings, each
// once, in first-seen order.
func loadKeys(edges []LoadEdge, isolated []string, values map[string]float64) []string {
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
	for _, k := range isolated {
		add(k)
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
