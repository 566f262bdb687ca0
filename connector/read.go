package connector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// MissingCommunity marks a node without a community property in
// Pulled.Communities (only when ReadOptions.AllowMissingCommunities).
const MissingCommunity = math.MinInt64

// ReadOptions control ReadGraph. The zero value means the defaults.
type ReadOptions struct {
	// AllowMissingValues reads nodes without the value property as NaN.
	// Default: such nodes are a *DataError.
	AllowMissingValues bool
	// AllowBadValues reads a value that is not a finite number as NaN (a
	// private answer's broken readings). Default: a *DataError.
	AllowBadValues bool
	// AllowMissingCommunities reads nodes without the community property
	// as MissingCommunity. Default: such nodes are a *DataError.
	AllowMissingCommunities bool
	// Progress, when set, is called with the stage ("nodes",
	// "relationships") and the count read so far, every 65536 items and at
	// the end of a stage.
	Progress func(stage string, done int)
	// Cypher reads with Cypher queries even where the server has
	// graphcloak's plugin (ReadProcedure), to compare the two reads.
	Cypher bool
	// Duplicates says what two relationships between the same two nodes
	// (parallel, or stored in both directions) mean; the default merges
	// those of equal weight into one edge and refuses those whose weights
	// differ (laplacian.DuplicateRule: the rule an edge list follows).
	Duplicates laplacian.DuplicateRule
}

// Pulled is a projection read from Neo4j. Node index i (0..n−1) is the
// order in which nodes were streamed; every per-node slice uses it.
type Pulled struct {
	// Graph is the undirected weighted graph; its keys are the node keys
	// (NodeKeyProperty values, else element ids).
	Graph *laplacian.Graph
	// ElementIDs[i] is node i's elementId (valid for writes while the
	// node exists; Neo4j reuses ids of deleted nodes).
	ElementIDs []string
	// Values[i] is node i's ValueProperty (NaN when absent and allowed);
	// nil when the projection has no ValueProperty.
	Values []float64
	// Communities[i] is node i's CommunityProperty (MissingCommunity when
	// absent and allowed); nil when the projection has no
	// CommunityProperty.
	Communities []int64
	// Stats describe what was read.
	Stats ReadStats
}

// ReadStats count what ReadGraph saw, in GDS-like terms.
type ReadStats struct {
	NodeCount         int `json:"nodeCount"`
	RelationshipCount int `json:"relationshipCount"` // relationships read, self-loops included
	// SelfLoopsSkipped counts relationships (a)->(a), which do not change
	// a Laplacian and are skipped, as from every source (laplacian.FromEdges).
	SelfLoopsSkipped int `json:"selfLoopsSkipped"`
	// ParallelMerged counts relationships merged into an existing edge
	// (parallel or opposite relationships between the same two nodes),
	// by ReadOptions.Duplicates: one edge of their common weight (merge),
	// or their weights added (sum). Pulled.Graph.Merges says more.
	ParallelMerged     int   `json:"parallelMerged"`
	MissingValues      int   `json:"missingValues"`
	MissingCommunities int   `json:"missingCommunities"`
	ReadMillis         int64 `json:"readMillis"`
	// ReadPath is how the graph was read: "procedure" (graphcloak's
	// plugin, ReadProcedure) or "cypher".
	ReadPath string `json:"readPath"`
	// ReadNote says why the plugin was not used although the server has
	// it (it is sandboxed); "" otherwise.
	ReadNote string `json:"readNote,omitempty"`
}

// progressEvery is how often ReadOptions.Progress is called.
const progressEvery = 1 << 16

// maxExamples is the number of offending items named in a DataError.
const maxExamples = 5

// ReadGraph streams the projection p from Neo4j: first the nodes (keys,
// values, communities), then the relationships between selected nodes,
// each in one managed read transaction whose records are consumed one by
// one (memory stays O(n + |E|) in compact form, never the whole result).
// Relationships are grouped per start node on the server, so one record
// carries a node's whole out-list.
//
// It checks first that every label, relationship type and property named
// exists (*SchemaError), then that every selected node has the required
// properties and every weight is a finite positive number (*DataError,
// naming examples). Self-loops are skipped and counted (laplacian.FromEdges:
// the rule of every source); parallel and opposite relationships are
// merged by opt.Duplicates (the rule of an edge list: by default
// relationships stored in both directions are one edge, and weights that
// differ are refused) and counted.
func (c *Client) ReadGraph(ctx context.Context, p Projection, opt ReadOptions) (*Pulled, error) {
	start := time.Now()
	cp, err := p.compile()
	if err != nil {
		return nil, err
	}
	db, err := c.db(p.Database)
	if err != nil {
		return nil, err
	}
	if err := c.checkSchema(ctx, db, p); err != nil {
		return nil, err
	}
	out := &Pulled{}
	nodes, rels, path, err := c.readProjection(ctx, db, p, cp, opt, &out.Stats)
	if err != nil {
		return nil, err
	}
	out.Stats.ReadPath = path
	out.ElementIDs = nodes.elementIDs
	out.Values = nodes.values
	out.Communities = nodes.communities
	out.Stats.NodeCount = len(nodes.elementIDs)
	out.Stats.MissingValues = nodes.missingValues
	out.Stats.MissingCommunities = nodes.missingCommunities
	if out.Stats.NodeCount == 0 {
		return nil, &DataError{Reason: fmt.Sprintf("nodes match the projection (labels %v)", p.NodeLabels)}
	}
	out.Stats.RelationshipCount = rels.count
	keys := nodes.keys
	if keys == nil {
		keys = nodes.elementIDs
	}
	// Keys a reader takes for one node ("027", "27"; "Alice", "alice")
	// are refused as an edge list's are: bad input, naming both.
	if err := laplacian.CheckKeyCollisions(keys); err != nil {
		return nil, fmt.Errorf("connector: node keys (%s): %w", p.NodeKeyProperty, err)
	}
	g, err := laplacian.FromEdges(len(keys), keys, rels.edges, laplacian.Options{Duplicates: opt.Duplicates})
	if err != nil {
		// A pair given twice (the operator's word is needed, or
		// --duplicate-edges reject) is bad input as in an edge list.
		var de *laplacian.DuplicateError
		if errors.As(err, &de) || errors.Is(err, laplacian.ErrDuplicateEdge) {
			return nil, fmt.Errorf("connector: relationships between the same two nodes: %w", err)
		}
		var ee *laplacian.EdgeError
		if errors.As(err, &ee) {
			return nil, &DataError{Property: p.RelationshipWeightProperty, Reason: "invalid edge: " + err.Error(),
				Count: 1, Examples: []string{"(" + ee.U + ")-(" + ee.V + ")"}}
		}
		return nil, fmt.Errorf("connector: build graph: %w", err)
	}
	out.Graph = g
	out.Stats.ParallelMerged = g.DuplicatesMerged()
	out.Stats.SelfLoopsSkipped = g.Merges().SelfLoops
	out.Stats.ReadMillis = time.Since(start).Milliseconds()
	return out, nil
}

// checkSchema verifies that every name of p exists in database db.
func (c *Client) checkSchema(ctx context.Context, db string, p Projection) error {
	type schema struct{ labels, types, props map[string]bool }
	s, err := runRead(ctx, c, db, "check schema", func(ctx context.Context, tx neo4j.ManagedTransaction) (schema, error) {
		s := schema{}
		var err error
		if s.labels, err = collectStrings(ctx, tx, "CALL db.labels() YIELD label RETURN label"); err != nil {
			return s, err
		}
		if s.types, err = collectStrings(ctx, tx, "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType"); err != nil {
			return s, err
		}
		s.props, err = collectStrings(ctx, tx, "CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey")
		return s, err
	})
	if err != nil {
		return err
	}
	if !wildcard(p.NodeLabels) {
		for _, l := range p.NodeLabels {
			if !s.labels[l] {
				return &SchemaError{What: "label", Name: l, Database: db}
			}
		}
	}
	if !wildcard(p.RelationshipTypes) {
		for _, t := range p.RelationshipTypes {
			if !s.types[t] {
				return &SchemaError{What: "relationship type", Name: t, Database: db}
			}
		}
	}
	for _, k := range []string{p.RelationshipWeightProperty, p.NodeKeyProperty, p.CommunityProperty, p.ValueProperty} {
		if k != "" && !s.props[k] {
			return &SchemaError{What: "property", Name: k, Database: db}
		}
	}
	return nil
}

func collectStrings(ctx context.Context, tx neo4j.ManagedTransaction, q string) (map[string]bool, error) {
	res, err := tx.Run(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for res.Next(ctx) {
		if s, ok := res.Record().Values[0].(string); ok {
			out[s] = true
		}
	}
	return out, res.Err()
}

// runRead runs work in a managed read transaction on db and classifies
// errors. work is retried on transient failures, so it must rebuild its
// state from scratch on every call. work gets the transaction's bounded
// context (txContext) and must run and read its queries with it: with the
// caller's context, a server that froze after a query was sent left the
// read of its result waiting forever (a release hung in 1 of 4 runs of
// TestStalledServerClientDeadline).
func runRead[T any](ctx context.Context, c *Client, db, op string, work func(ctx context.Context, tx neo4j.ManagedTransaction) (T, error)) (T, error) {
	tctx, cancel := c.txContext(ctx)
	defer cancel()
	s := c.session(tctx, db, neo4j.AccessModeRead)
	defer c.closeSession(ctx, s)
	v, err := neo4j.ExecuteRead(tctx, s, func(tx neo4j.ManagedTransaction) (T, error) { return work(tctx, tx) }, c.txConfig()...)
	if err != nil {
		return v, c.classifyTimed(ctx, tctx, op, err)
	}
	return v, nil
}

// runWrite is runRead for a managed write transaction. Under a context
// of WithLockWait it ends within that bound (*LockWaitError).
func runWrite[T any](ctx context.Context, c *Client, db, op string, work func(ctx context.Context, tx neo4j.ManagedTransaction) (T, error)) (T, error) {
	tctx, cancel, cfg, bound := c.boundedTx(ctx)
	defer cancel()
	s := c.session(tctx, db, neo4j.AccessModeWrite)
	defer c.closeSession(ctx, s)
	v, err := neo4j.ExecuteWrite(tctx, s, func(tx neo4j.ManagedTransaction) (T, error) { return work(tctx, tx) }, cfg...)
	if err != nil {
		return v, c.classifyBounded(ctx, tctx, bound, op, err)
	}
	return v, nil
}

// closeSession closes s within the acquisition timeout (at least 5 s): on
// a server that stopped answering, closing would otherwise wait forever to
// roll the transaction back, and the run would never end.
func (c *Client) closeSession(ctx context.Context, s neo4j.SessionWithContext) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(c.acquireTimeout, 5*time.Second))
	defer cancel()
	_ = s.Close(cctx)
}

// txContext bounds one managed transaction (with its retries) on the
// client side: the transaction timeout plus the acquisition timeout, so a
// server that stops answering is noticed even when it never enforces its
// own limit.
func (c *Client) txContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.txTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.txTimeout+c.acquireTimeout)
}

// classifyTimed is classify, reporting the client-side deadline of
// txContext (tctx expired while ctx did not) as *TimeoutError. The
// deadline is judged by the clock as well as by tctx.Err(): the driver's
// socket deadline can fire before the context's own timer has run, and
// the error must not depend on which goroutine ran first.
func (c *Client) classifyTimed(ctx, tctx context.Context, op string, err error) error {
	d, ok := tctx.Deadline()
	expired := tctx.Err() != nil || (ok && !time.Now().Before(d))
	if ctx.Err() == nil && expired {
		if cd, ok := ctx.Deadline(); ok && !cd.After(d) {
			// The caller's deadline (a run's bookkeeping deadline) was
			// the one that bound, not the transaction timeout.
			return &TimeoutError{URI: c.uri, Op: op, Err: err}
		}
		return &TimeoutError{URI: c.uri, Op: op, After: c.txTimeout + c.acquireTimeout, Err: err}
	}
	return c.classify(op, err)
}

type nodeData struct {
	elementIDs         []string
	keys               []string // nil in elementId mode
	values             []float64
	communities        []int64
	index              map[string]int32 // elementId → node index (nil in the plugin's read)
	missingValues      int
	missingCommunities int
}

// examples collects up to maxExamples offending names and counts all.
type examples struct {
	count int
	names []string
}

func (e *examples) add(name string) {
	e.count++
	if len(e.names) < maxExamples {
		e.names = append(e.names, name)
	}
}

func (c *Client) readNodes(ctx context.Context, db string, p Projection, cp *compiled, opt ReadOptions) (*nodeData, error) {
	var ret strings.Builder
	ret.WriteString("MATCH " + cp.nodeMatch("n") + " RETURN elementId(n) AS id")
	for _, f := range []struct{ q, as string }{{cp.key, "key"}, {cp.value, "value"}, {cp.community, "community"}} {
		if f.q != "" {
			ret.WriteString(", n." + f.q + " AS " + f.as)
		}
	}
	query := ret.String()
	r, err := runRead(ctx, c, db, "read nodes", func(ctx context.Context, tx neo4j.ManagedTransaction) (*nodeReader, error) {
		// A managed transaction may be retried: start from scratch.
		r := newNodeReader(cp, opt)
		res, err := tx.Run(ctx, query, nil)
		if err != nil {
			return nil, err
		}
		for res.Next(ctx) {
			if err := r.add(res.Record().Values); err != nil {
				return nil, err
			}
		}
		if err := res.Err(); err != nil {
			return nil, err
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	if opt.Progress != nil {
		opt.Progress("nodes", len(r.nd.elementIDs))
	}
	if err := r.check(p); err != nil {
		return nil, err
	}
	return r.nd, nil
}

// nodeReader accumulates the node records of one read and the examples of
// every kind of bad record, reported together by check.
type nodeReader struct {
	cp                              *compiled
	opt                             ReadOptions
	nd                              *nodeData
	seen                            map[string]bool // keys seen so far
	badKey, dupKey, missVal, badVal examples
	missComm, badComm               examples
}

func newNodeReader(cp *compiled, opt ReadOptions) *nodeReader {
	r := &nodeReader{cp: cp, opt: opt, nd: &nodeData{index: map[string]int32{}}}
	if cp.key != "" {
		r.nd.keys = []string{}
		r.seen = map[string]bool{}
	}
	if cp.value != "" {
		r.nd.values = []float64{}
	}
	if cp.community != "" {
		r.nd.communities = []int64{}
	}
	return r
}

// add takes one record: elementId, then the key, value and community
// columns that the projection asks for, in that order.
func (r *nodeReader) add(vals []any) error {
	nd := r.nd
	id, _ := vals[0].(string)
	i := len(nd.elementIDs)
	if i >= math.MaxInt32 {
		return fmt.Errorf("connector: more than %d nodes", math.MaxInt32)
	}
	if nd.index != nil { // the Cypher read resolves relationship ends by element id
		nd.index[id] = int32(i)
	}
	nd.elementIDs = append(nd.elementIDs, id)
	name, col := id, 1
	if r.cp.key != "" {
		name = r.addKey(id, vals[col])
		col++
	}
	if r.cp.value != "" {
		r.addValue(name, vals[col])
		col++
	}
	if r.cp.community != "" {
		r.addCommunity(name, vals[col])
	}
	if r.opt.Progress != nil && len(nd.elementIDs)%progressEvery == 0 {
		r.opt.Progress("nodes", len(nd.elementIDs))
	}
	return nil
}

// addKey records the node's key (a stand-in derived from its elementId
// when the key is unusable) and returns the name to report it by.
func (r *nodeReader) addKey(id string, v any) string {
	k, ok := keyString(v)
	if !ok {
		r.badKey.add(id)
		k = "elementId:" + id
	} else if r.seen[k] {
		r.dupKey.add(k)
	}
	r.seen[k] = true
	r.nd.keys = append(r.nd.keys, k)
	return k
}

func (r *nodeReader) addValue(name string, raw any) {
	v, present, ok := number(raw)
	switch {
	case !present:
		r.nd.missingValues++
		if !r.opt.AllowMissingValues {
			r.missVal.add(name)
		}
		v = math.NaN()
	case !ok && r.opt.AllowBadValues:
		v = math.NaN()
	case !ok:
		r.badVal.add(name)
	}
	r.nd.values = append(r.nd.values, v)
}

func (r *nodeReader) addCommunity(name string, raw any) {
	cm, present, ok := integer(raw)
	switch {
	case !present:
		r.nd.missingCommunities++
		if !r.opt.AllowMissingCommunities {
			r.missComm.add(name)
		}
		cm = MissingCommunity
	case !ok:
		r.badComm.add(name)
	}
	r.nd.communities = append(r.nd.communities, cm)
}

// check returns a *DataError for the first kind of bad record found.
func (r *nodeReader) check(p Projection) error {
	for _, chk := range []struct {
		ex   examples
		prop string
		why  string
	}{
		{r.badKey, p.NodeKeyProperty, "nodes have no key, or a key that is neither a string nor an integer"},
		{r.dupKey, p.NodeKeyProperty, "nodes share a key with an earlier node (keys must be unique)"},
		{r.missVal, p.ValueProperty, "nodes have no value"},
		{r.badVal, p.ValueProperty, "nodes have a value that is not a finite number"},
		{r.missComm, p.CommunityProperty, "nodes have no community"},
		{r.badComm, p.CommunityProperty, "nodes have a community that is not an integer"},
	} {
		if chk.ex.count > 0 {
			return &DataError{Property: chk.prop, Reason: chk.why, Count: chk.ex.count, Examples: chk.ex.names}
		}
	}
	return nil
}

// readProjection reads the nodes and relationships of p: with
// ReadProcedure where the server has it (unless opt.Cypher), else with
// Cypher (a node pass, then a relationship pass). It returns which read
// ran: "procedure" or "cypher"; st.ReadNote says why an installed plugin
// was not used.
func (c *Client) readProjection(ctx context.Context, db string, p Projection, cp *compiled, opt ReadOptions, st *ReadStats) (*nodeData, *relData, string, error) {
	if !opt.Cypher {
		has, err := c.hasProcedure(ctx, db, ReadProcedure)
		var refused *QueryError
		switch {
		case errors.As(err, &refused):
			// The server answered but would not list procedures (a user
			// without the privilege to): read as if it had no plugin.
			has = false
		case err != nil:
			return nil, nil, "", err
		}
		if has {
			nodes, rels, err := c.readWithProcedure(ctx, db, p, cp, opt)
			var qe *QueryError
			switch {
			case errors.As(err, &qe) && qe.Code == sandboxedCode:
				// Installed without the unrestricted setting: Neo4j lists
				// the procedure but refuses to run it.
				st.ReadNote = ReadProcedure + " is installed but sandboxed, so the graph was read with Cypher: " +
					"allow it with dbms.security.procedures.unrestricted=graphcloak.* in neo4j.conf (docs/neo4j.md)"
			case !errors.Is(err, errCypherDiagnosis):
				return nodes, rels, "procedure", err
			}
		}
	}
	nodes, err := c.readNodes(ctx, db, p, cp, opt)
	if err != nil {
		return nil, nil, "", err
	}
	if len(nodes.elementIDs) == 0 {
		return nodes, &relData{}, "cypher", nil
	}
	rels, err := c.readRelationships(ctx, db, p, cp, nodes, opt)
	if err != nil {
		return nil, nil, "", err
	}
	return nodes, rels, "cypher", nil
}

type relData struct {
	edges []laplacian.Edge // self-loops included: FromEdges skips and counts them
	count int
}

func (c *Client) readRelationships(ctx context.Context, db string, p Projection, cp *compiled, nd *nodeData, opt ReadOptions) (*relData, error) {
	query := relsQuery(cp)
	r, err := runRead(ctx, c, db, "read relationships", func(ctx context.Context, tx neo4j.ManagedTransaction) (*relRows, error) {
		// Fresh state on every attempt: managed transactions are retried.
		r := &relRows{nd: nd, weighted: cp.weight != "", rd: &relData{}}
		res, err := tx.Run(ctx, query, nil)
		if err != nil {
			return nil, err
		}
		next := progressEvery
		for res.Next(ctx) {
			if err := r.add(res.Record().Values); err != nil {
				return nil, err
			}
			if opt.Progress != nil && r.rd.count >= next {
				opt.Progress("relationships", r.rd.count)
				next += progressEvery
			}
		}
		if err := res.Err(); err != nil {
			return nil, err
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	if opt.Progress != nil {
		opt.Progress("relationships", r.rd.count)
	}
	if err := r.problem(p); err != nil {
		return nil, err
	}
	return r.rd, nil
}

// relsQuery returns one record per start node: its out-relationships to
// selected nodes as [elementId(b), weight] pairs (or just elementId(b) when
// unweighted). The pairs are split into two flat lists on the server: two
// lists per record decode with far fewer allocations than one list per
// pair.
func relsQuery(cp *compiled) string {
	if cp.weight == "" {
		return "MATCH " + cp.nodeMatch("a") + " WITH a, [(a)-[" + cp.relPattern + "]->" + cp.nodeMatch("b") +
			" | elementId(b)] AS out WHERE size(out) > 0 RETURN elementId(a) AS s, out"
	}
	return "MATCH " + cp.nodeMatch("a") + " WITH a, [(a)-[" + cp.relPattern + "]->" + cp.nodeMatch("b") +
		" | [elementId(b), r." + cp.weight + "]] AS out WHERE size(out) > 0 " +
		"RETURN elementId(a) AS s, [p IN out | p[0]] AS out, [p IN out | p[1]] AS w"
}

// relRows accumulates the records of relsQuery and the problems found in
// them.
type relRows struct {
	nd              *nodeData
	weighted        bool
	rd              *relData
	chunks          [][]laplacian.Edge // the plugin's edge chunks, decoded (addPacked)
	missing, badW   examples
	unknownEndpoint int
}

// name is node i's key, else its element id.
func (r *relRows) name(i int32) string {
	if r.nd.keys != nil {
		return r.nd.keys[i]
	}
	return r.nd.elementIDs[i]
}

// add reads one start node's record; only a malformed record is an error
// here, problems with the data are collected for problem.
func (r *relRows) add(vals []any) error {
	sid, _ := vals[0].(string)
	u, ok := r.nd.index[sid]
	list, _ := vals[1].([]any)
	var ws []any
	if r.weighted {
		ws, _ = vals[2].([]any)
		if len(ws) != len(list) {
			return fmt.Errorf("connector: read relationships: %d targets but %d weights", len(list), len(ws))
		}
	}
	if !ok {
		// The node appeared after the node pass (concurrent write).
		r.unknownEndpoint += len(list)
		return nil
	}
	for k, it := range list {
		tid, _ := it.(string)
		var w any
		if ws != nil {
			w = ws[k]
		}
		r.addEdge(u, tid, w)
	}
	return nil
}

// addEdge records the relationship from node u to the node with element id
// tid and raw weight w (nil when unweighted: weight 1).
func (r *relRows) addEdge(u int32, tid string, w any) {
	r.rd.count++
	weight := 1.0
	if r.weighted {
		v, present, ok := number(w)
		switch {
		case !present:
			r.missing.add(relName(r.name(u), tid, r.nd, r.name))
			return
		case !ok || !(v > 0):
			r.badW.add(relName(r.name(u), tid, r.nd, r.name) + "=" + fmt.Sprint(w))
			return
		}
		weight = v
	}
	v, ok := r.nd.index[tid]
	if !ok {
		r.unknownEndpoint++
		return
	}
	r.rd.edges = append(r.rd.edges, laplacian.Edge{U: u, V: v, Weight: weight})
}

// problem returns a *DataError for the first kind of problem found, in a
// fixed order (missing weights, bad weights, unknown endpoints), or nil.
func (r *relRows) problem(p Projection) error {
	if r.missing.count > 0 {
		return &DataError{Property: p.RelationshipWeightProperty, Reason: "relationships have no weight",
			Count: r.missing.count, Examples: r.missing.names}
	}
	if r.badW.count > 0 {
		return &DataError{Property: p.RelationshipWeightProperty,
			Reason: "relationships have a weight that is not a finite positive number",
			Count:  r.badW.count, Examples: r.badW.names}
	}
	if r.unknownEndpoint > 0 {
		return &DataError{Reason: "relationships reach nodes created after the node pass (the graph changed while being read; retry)",
			Count: r.unknownEndpoint}
	}
	return nil
}

func relName(from, toElementID string, nd *nodeData, name func(int32) string) string {
	to := toElementID
	if i, ok := nd.index[toElementID]; ok {
		to = name(i)
	}
	return "(" + from + ")-->(" + to + ")"
}

// keyString converts a key property value (string or integer) to a key.
func keyString(v any) (string, bool) {
	switch k := v.(type) {
	case string:
		return k, true
	case int64:
		return strconv.FormatInt(k, 10), true
	}
	return "", false
}

// number converts a property value to float64: present is false for null,
// ok is false for a non-number or a non-finite float.
func number(v any) (x float64, present, ok bool) {
	switch t := v.(type) {
	case nil:
		return math.NaN(), false, false
	case float64:
		return t, true, !math.IsNaN(t) && !math.IsInf(t, 0)
	case int64:
		return float64(t), true, true
	}
	return math.NaN(), true, false
}

// integer converts a property value to int64; floats with an integral
// value are accepted.
func integer(v any) (x int64, present, ok bool) {
	switch t := v.(type) {
	case nil:
		return MissingCommunity, false, false
	case int64:
		return t, true, true
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int64(t), true, true
		}
	}
	return MissingCommunity, true, false
}
