package connector

import (
	"context"
	"fmt"
	"slices"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// OutputLabel is the label of the output registry: one node per node
// property that graphcloak writes, with the kind of values it holds and the
// run that last claimed it:
//
//	(:GraphcloakOutput {property, kind, runId, command, updatedAt})
//
// A writer claims its properties (ClaimOutputs) before anything is charged
// or written, and a property already registered with another kind is
// refused: a localisation never writes community ids over a release's
// values, a release never writes noise over a rank. The properties a run
// reads as its graph's identity (node keys, raw readings) are registered
// too, as inputs that no writer may claim.
const OutputLabel = "GraphcloakOutput"

// Kinds of registered properties.
const (
	KindReleaseValues = "release values"
	KindRunIDs        = "run ids"
	KindMass          = "source mass"
	KindCommunity     = "community ids"
	KindProbability   = "community probability"
	KindRank          = "community rank"
	KindNodeKey       = "node key (input)"
	KindReadings      = "raw readings (input)"
)

// inputKind: registered as read by a run; never claimed by a writer.
func inputKind(k string) bool { return k == KindNodeKey || k == KindReadings }

// OutputOwnedError reports an output property registered with another
// kind of values (or as an input), naming who registered it.
type OutputOwnedError struct {
	Property, Writes string // the property and the kind this run writes
	Owner, OwnerKind string // the run (or command) that registered it, and its kind
}

func (e *OutputOwnedError) Error() string {
	if inputKind(e.OwnerKind) {
		return fmt.Sprintf("connector: property %q is registered as a %s (by %s): graphcloak never writes %s into it; choose another property",
			e.Property, e.OwnerKind, e.Owner, e.Writes)
	}
	return fmt.Sprintf("connector: property %q holds %s (written by %s): writing %s into it would destroy them; choose another property",
		e.Property, e.OwnerKind, e.Owner, e.Writes)
}

func (*OutputOwnedError) connectorError() {}

// Kind: the user names another property.
func (*OutputOwnedError) Kind() errkind.Kind { return errkind.BadInput }

// Claims are the properties a run registers: outputs (property → kind of
// values written) and inputs (property → KindNodeKey or KindReadings).
type Claims struct {
	Outputs, Inputs map[string]string
}

// ClaimOutputs registers cl for run runID of command in database (""
// = the client's default), in one transaction: every output property must
// be unregistered or registered with the same kind (else
// *OutputOwnedError and nothing changes); outputs then name this run,
// and inputs not registered yet are registered as such. An input that is
// some run's output is left as it is (a localisation reads a release's
// values).
func (c *Client) ClaimOutputs(ctx context.Context, database, runID, command string, cl Claims) error {
	db, err := c.db(database)
	if err != nil {
		return err
	}
	for _, m := range []map[string]string{cl.Outputs, cl.Inputs} {
		for p := range m {
			if err := CheckIdentifier("property", p); err != nil {
				return err
			}
		}
	}
	if err := c.ensureConstraints(ctx, db); err != nil {
		return err
	}
	props := make([]string, 0, len(cl.Outputs))
	for p := range cl.Outputs {
		props = append(props, p)
	}
	slices.Sort(props)
	var owned *OutputOwnedError
	_, err = runWrite(ctx, c, db, "claim outputs", func(ctx context.Context, tx neo4j.ManagedTransaction) (struct{}, error) {
		owned = nil
		res, err := tx.Run(ctx, "UNWIND $props AS p MATCH (o:"+OutputLabel+" {property: p}) RETURN o.property, o.kind, o.runId, o.command",
			map[string]any{"props": append(slices.Clone(props), keys(cl.Inputs)...)})
		if err != nil {
			return struct{}{}, err
		}
		recs, err := res.Collect(ctx)
		if err != nil {
			return struct{}{}, err
		}
		for _, r := range recs {
			p, _ := r.Values[0].(string)
			kind, _ := r.Values[1].(string)
			want, isOutput := cl.Outputs[p]
			if !isOutput || kind == want {
				continue
			}
			by, _ := r.Values[3].(string)
			if id, _ := r.Values[2].(string); id != "" {
				by = "run " + id
			}
			owned = &OutputOwnedError{Property: p, Writes: want, Owner: by, OwnerKind: kind}
			return struct{}{}, owned
		}
		rows := make([]any, 0, len(props))
		for _, p := range props {
			rows = append(rows, map[string]any{"p": p, "kind": cl.Outputs[p]})
		}
		params := map[string]any{"rows": rows, "run": runID, "command": command}
		if _, err := tx.Run(ctx, "UNWIND $rows AS row MERGE (o:"+OutputLabel+" {property: row.p}) "+
			"SET o.kind = row.kind, o.runId = $run, o.command = $command, o.updatedAt = datetime()", params); err != nil {
			return struct{}{}, err
		}
		in := make([]any, 0, len(cl.Inputs))
		for p, kind := range cl.Inputs {
			in = append(in, map[string]any{"p": p, "kind": kind})
		}
		params["rows"] = in
		_, err = tx.Run(ctx, "UNWIND $rows AS row MERGE (o:"+OutputLabel+" {property: row.p}) "+
			"ON CREATE SET o.kind = row.kind, o.runId = $run, o.command = $command, o.updatedAt = datetime()", params)
		return struct{}{}, err
	})
	if owned != nil {
		return owned
	}
	return err
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// InputClaims are the inputs of projection p a run registers: its node
// key and raw readings properties.
func InputClaims(p Projection) map[string]string {
	in := map[string]string{}
	if p.NodeKeyProperty != "" {
		in[p.NodeKeyProperty] = KindNodeKey
	}
	if p.ValueProperty != "" {
		in[p.ValueProperty] = KindReadings
	}
	return in
}
