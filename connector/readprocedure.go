package connector

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// ReadProcedure is the procedure of graphcloak's Neo4j plugin
// (connector/neo4j-plugin, built by scripts/neo4j-plugin.sh). Where the
// server has it, ReadGraph reads the projection through it: nodes in
// chunks, relationships as packed node positions and weights, in one
// transaction — several times faster than Cypher rows, which carry an
// elementId string per relationship end.
const ReadProcedure = "graphcloak.read"

// readFormat is the edge layout this connector decodes; the plugin sends
// its own in every chunk.
const readFormat = 1

// sandboxedCode is Neo4j's status for a procedure that is installed but
// may not run: graphcloak.read needs the kernel, which a server gives only
// to procedures named in dbms.security.procedures.unrestricted.
const sandboxedCode = "Neo.ClientError.Procedure.ProcedureRegistrationFailed"

// errCypherDiagnosis asks ReadGraph to read again with Cypher: the plugin
// found relationships whose weight is missing or not a positive number,
// and the Cypher read names them (as *DataError) with the exact values.
var errCypherDiagnosis = errors.New("connector: weights need the Cypher read's diagnosis")

// hasProcedure reports whether database db lists the procedure name.
func (c *Client) hasProcedure(ctx context.Context, db, name string) (bool, error) {
	return runRead(ctx, c, db, "look for "+name, func(ctx context.Context, tx neo4j.ManagedTransaction) (bool, error) {
		res, err := tx.Run(ctx, "SHOW PROCEDURES YIELD name WHERE name = $name RETURN name", map[string]any{"name": name})
		if err != nil {
			return false, err
		}
		found := res.Next(ctx)
		return found, res.Err()
	})
}

// readWithProcedure reads the nodes and relationships of p with
// ReadProcedure in one read transaction. Node chunks go through the same
// nodeReader as the Cypher rows (the same columns: elementId, key, value,
// community), so both reads validate alike.
func (c *Client) readWithProcedure(ctx context.Context, db string, p Projection, cp *compiled, opt ReadOptions) (*nodeData, *relData, error) {
	params, props := procedureParams(p)
	query := "CALL " + ReadProcedure + "($labels, $exclude, $types, $props, $weight) YIELD format, elementIds, properties, edges " +
		"RETURN format, elementIds, properties, edges"
	type pass struct {
		nodes *nodeReader
		rels  *relRows
	}
	r, err := runRead(ctx, c, db, "read graph ("+ReadProcedure+")", func(ctx context.Context, tx neo4j.ManagedTransaction) (pass, error) {
		// Fresh state on every attempt: managed transactions are retried.
		nr := newNodeReader(cp, opt)
		nr.nd.index = nil // edges come as positions: no element id lookups
		rr := &relRows{nd: nr.nd, weighted: cp.weight != "", rd: &relData{}}
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return pass{}, err
		}
		if err := readChunks(ctx, res, nr, rr, len(props), opt); err != nil {
			return pass{}, err
		}
		return pass{nr, rr}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if opt.Progress != nil {
		opt.Progress("relationships", r.rels.rd.count)
	}
	if err := r.nodes.check(p); err != nil {
		return nil, nil, err
	}
	if r.rels.badW.count > 0 {
		return nil, nil, errCypherDiagnosis
	}
	r.rels.rd.edges = r.rels.joined()
	return r.nodes.nd, r.rels.rd, nil
}

// readChunks reads ReadProcedure's records: node chunks into nr, then
// edge chunks into rr, reporting progress as it goes.
func readChunks(ctx context.Context, res neo4j.ResultWithContext, nr *nodeReader, rr *relRows, props int, opt ReadOptions) error {
	row := make([]any, 1+props)
	next, nodesDone := progressEvery, false
	for res.Next(ctx) {
		v := res.Record().Values
		if f, _ := v[0].(int64); f != readFormat {
			return fmt.Errorf("connector: %s sends format %d, this graphcloak reads format %d: install the plugin built from this version (scripts/neo4j-plugin.sh)", ReadProcedure, f, readFormat)
		}
		if ids, ok := v[1].([]any); ok {
			vals, _ := v[2].([]any)
			if err := addNodeChunk(nr, row, ids, vals); err != nil {
				return err
			}
			continue
		}
		if opt.Progress != nil && !nodesDone {
			opt.Progress("nodes", len(nr.nd.elementIDs))
		}
		nodesDone = true
		packed, _ := v[3].([]byte)
		if err := rr.addPacked(packed); err != nil {
			return err
		}
		if opt.Progress != nil && rr.rd.count >= next {
			opt.Progress("relationships", rr.rd.count)
			next = rr.rd.count + progressEvery
		}
	}
	if err := res.Err(); err != nil {
		return err
	}
	if opt.Progress != nil && !nodesDone {
		opt.Progress("nodes", len(nr.nd.elementIDs)) // no relationship chunk followed
	}
	return nil
}

// procedureParams returns ReadProcedure's parameters for p and the node
// properties it streams, in the order of the nodeReader's columns.
func procedureParams(p Projection) (map[string]any, []string) {
	params := map[string]any{
		"labels": []string{}, "exclude": BookkeepingLabels, "types": []string{}, "weight": p.RelationshipWeightProperty,
	}
	if !wildcard(p.NodeLabels) {
		params["labels"] = p.NodeLabels
	}
	if !wildcard(p.RelationshipTypes) {
		params["types"] = p.RelationshipTypes
	}
	props := []string{}
	for _, name := range []string{p.NodeKeyProperty, p.ValueProperty, p.CommunityProperty} {
		if name != "" {
			props = append(props, name)
		}
	}
	params["props"] = props
	return params, props
}

// addNodeChunk adds one node chunk of ReadProcedure (element ids and their
// property values, len(row)−1 per node) to nr, through row as scratch.
func addNodeChunk(nr *nodeReader, row, ids, vals []any) error {
	props := len(row) - 1
	if len(vals) != len(ids)*props {
		return fmt.Errorf("connector: %s: %d nodes but %d property values", ReadProcedure, len(ids), len(vals))
	}
	for k, id := range ids {
		row[0] = id
		copy(row[1:], vals[k*props:])
		if err := nr.add(row); err != nil {
			return err
		}
	}
	return nil
}

// addPacked decodes one edge chunk of ReadProcedure: little-endian int32
// start and end positions (indices into the node chunks before it) and,
// when weighted, the float64 weight (NaN: missing or not a number).
func (r *relRows) addPacked(b []byte) error {
	width := 8
	if r.weighted {
		width = 16
	}
	if len(b)%width != 0 {
		return fmt.Errorf("connector: %s: an edge chunk of %d bytes is not a multiple of %d", ReadProcedure, len(b), width)
	}
	n := int32(len(r.nd.elementIDs))
	// Each chunk's edges go to a slice of their own, joined once at the
	// end (joined): appending 10⁶ edges to one slice copied it again at
	// every doubling, and the collector stalled on those copies (a third
	// of the client's time reading a bare edge list).
	part := make([]laplacian.Edge, 0, len(b)/width)
	for ; len(b) > 0; b = b[width:] {
		u := int32(binary.LittleEndian.Uint32(b))
		v := int32(binary.LittleEndian.Uint32(b[4:]))
		if u < 0 || u >= n || v < 0 || v >= n {
			return fmt.Errorf("connector: %s: edge (%d, %d) outside the %d nodes streamed", ReadProcedure, u, v, n)
		}
		w := 1.0
		if r.weighted {
			w = math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
		}
		r.rd.count++
		if !(w > 0) || math.IsInf(w, 1) {
			r.badW.count++ // named by the Cypher read (errCypherDiagnosis)
			continue
		}
		part = append(part, laplacian.Edge{U: u, V: v, Weight: w})
	}
	r.chunks = append(r.chunks, part)
	return nil
}

// joined returns the edges of every chunk decoded by addPacked, in order,
// in one slice of their exact number.
func (r *relRows) joined() []laplacian.Edge {
	return slices.Concat(r.chunks...)
}
