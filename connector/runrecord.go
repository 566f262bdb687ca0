package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// RunRecordLabel is the label of run record nodes.
const RunRecordLabel = "GraphcloakRun"

// Run statuses. A run is created "running" (StartRun) and set to
// "succeeded" only after every property has been written (Run.Succeed), so
// a crashed or killed run never looks successful:
//
//	running ──Succeed──► succeeded ──(a later run overwrites its nodes)──► superseded
//	   │  └──Fail─────► failed
//	   └──(lease expired, marked by the next StartRun of its command and scope)──► abandoned
//
// failed and abandoned release runs can be resumed (ResumeRun) when their
// released values were stored (RunRecord.ValuesStored).
const (
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	// StatusInterrupted: stopped by a signal or shutdown before it
	// finished; like "failed", its epoch can be resumed.
	StatusInterrupted = "interrupted"
	StatusAbandoned   = "abandoned"
	StatusSuperseded  = "superseded"
)

// RunRecord is one graphcloak run as stored in a (:GraphcloakRun) node,
// keyed by RunID (unique). Property names follow GDS where GDS has one
// (nodePropertiesWritten, computeMillis, writeMillis). ReadRun returns it
// typed; every field below round-trips.
//
// Never put secrets (passwords, noise keys) in any field: everything here
// is readable by every database user.
type RunRecord struct {
	RunID   string // required; unique per run
	Command string // "release", "locate", …
	// Status is one of the Status* constants.
	Status string
	Error  string // the failure, for StatusFailed (no secrets)
	// Database where the record is written; "" means the client's default.
	Database string
	// Projection read; stored as nodeLabels, relationshipTypes, … .
	Projection Projection
	// Parameters are the run's other settings, stored as one JSON string
	// property "parameters" (read back with JSON types: numbers are float64).
	Parameters map[string]any
	// WriteProperty is the node property the run writes its main values
	// to ("" when it writes none). RunIDProperty(WriteProperty) then holds
	// this run's id on every node it wrote, set in the same statement as
	// the value, so readers can check which run a value comes from.
	WriteProperty string
	// Scope and Epoch are the ledger scope and epoch a release charged;
	// ReleaseID its fresh random release id (privacy.NewReleaseID), which
	// enters the keyed noise derivation.
	Scope, Epoch, ReleaseID string
	// ReleaseMeta is the public privacy.ReleaseMeta of a release as JSON
	// (what unmask needs to regenerate keyed noise).
	ReleaseMeta string
	// ValuesStored is true once the released values are stored durably
	// (StoreReleaseValues) — before the first node is written — so that a
	// failed or abandoned run can be re-published exactly (ResumeRun).
	ValuesStored bool
	// ValuesDigest is privacy.ValuesDigest of the released values (set with
	// ReleaseMeta, before they are stored): readers recompute it from the
	// node values they read and refuse anything else.
	ValuesDigest string
	// SupersededBy names the run that overwrote this run's values
	// (StatusSuperseded).
	SupersededBy string
	// Attempts counts StartRun plus every ResumeRun of this record.
	Attempts int
	// LeaseExpiresAt is when a running run is considered dead unless it
	// sends a heartbeat (Run.Heartbeat) first; HeartbeatAt the last one.
	LeaseExpiresAt, HeartbeatAt time.Time
	// Privacy numbers of a release (0 when not applicable): σ, Δ2, the ρ
	// charged, and the (ε, δ) it was calibrated for.
	Sigma, Delta2, Rho, Epsilon, Delta float64
	// Counts and timings.
	NodeCount             int
	RelationshipCount     int
	NodePropertiesWritten int
	ComputeMillis         int64
	WriteMillis           int64
	StartedAt, FinishedAt time.Time
	// Extra are further flat properties (names must be identifiers;
	// values bool, int64, float64, string or slices of those). ReadRun
	// returns every stored property not covered by a field here.
	Extra map[string]any
}

// RunIDProperty is the node property that records which run wrote
// writeProperty: writeProperty + "_runId". CheckWriteProperty validates
// both names.
func RunIDProperty(writeProperty string) string { return writeProperty + runIDSuffix }

const runIDSuffix = "_runId"

// CheckWriteProperty validates a property a run writes values to: an
// identifier (CheckIdentifier) short enough that RunIDProperty of it is
// one too. Call it before anything is charged or written.
func CheckWriteProperty(name string) error {
	if err := CheckIdentifier("property", name); err != nil {
		return err
	}
	if len(name)+len(runIDSuffix) > maxIdentifier {
		return &IdentifierError{What: "property", Name: name,
			Reason: fmt.Sprintf("longer than %d bytes (the run id is written to %s_runId, at most 64 bytes)", maxIdentifier-len(runIDSuffix), name)}
	}
	return nil
}

// WriteRunRecord creates or updates the (:GraphcloakRun {runId}) node with
// every field of r (MERGE on runId, then SET +=), in one write
// transaction. It is the low-level form; commands use StartRun and the
// methods of Run, which add leases and the status rules.
func (c *Client) WriteRunRecord(ctx context.Context, r RunRecord) error {
	if r.RunID == "" {
		return &ArgumentError{Param: "run id", Reason: "must not be empty"}
	}
	if !validStatus(r.Status) {
		return &ArgumentError{Param: "run status", Value: r.Status, Reason: "must be running, succeeded, failed, abandoned or superseded"}
	}
	db, err := c.db(r.Database)
	if err != nil {
		return err
	}
	props, err := r.properties()
	if err != nil {
		return err
	}
	if err := c.ensureConstraints(ctx, db); err != nil {
		return err
	}
	_, err = c.exec(ctx, db, "write run record", "MERGE (r:"+RunRecordLabel+" {runId: $id}) SET r += $props",
		map[string]any{"id": r.RunID, "props": props})
	return err
}

func validStatus(s string) bool {
	switch s {
	case StatusRunning, StatusSucceeded, StatusFailed, StatusInterrupted, StatusAbandoned, StatusSuperseded:
		return true
	}
	return false
}

// Stored names of the typed fields (everything else is Extra).
var standardRunProps = map[string]bool{
	"runId": true, "command": true, "status": true, "error": true, "parameters": true,
	"nodeLabels": true, "relationshipTypes": true, "relationshipWeightProperty": true,
	"nodeKeyProperty": true, "communityProperty": true, "valueProperty": true,
	"writeProperty": true, "runIdProperty": true, "scope": true, "epoch": true, "releaseId": true,
	"releaseMeta": true, "valuesStored": true, "valuesDigest": true, "supersededBy": true, "attempts": true,
	"leaseExpiresAt": true, "heartbeatAt": true,
	"sigma": true, "delta2": true, "rho": true, "epsilon": true, "delta": true,
	"nodeCount": true, "relationshipCount": true, "nodePropertiesWritten": true,
	"computeMillis": true, "writeMillis": true, "startedAt": true, "finishedAt": true, "updatedAt": true,
}

func (r RunRecord) properties() (map[string]any, error) {
	params := "{}"
	if len(r.Parameters) > 0 {
		b, err := json.Marshal(r.Parameters)
		if err != nil {
			return nil, &ArgumentError{Param: "run parameters", Reason: fmt.Sprintf("are not JSON-encodable: %v", err)}
		}
		params = string(b)
	}
	p := map[string]any{
		"command":               r.Command,
		"status":                r.Status,
		"parameters":            params,
		"nodeLabels":            nonNil(r.Projection.NodeLabels),
		"relationshipTypes":     nonNil(r.Projection.RelationshipTypes),
		"nodeCount":             int64(r.NodeCount),
		"relationshipCount":     int64(r.RelationshipCount),
		"nodePropertiesWritten": int64(r.NodePropertiesWritten),
		"computeMillis":         r.ComputeMillis,
		"writeMillis":           r.WriteMillis,
		"updatedAt":             time.Now().UTC(),
	}
	for k, v := range map[string]string{
		"relationshipWeightProperty": r.Projection.RelationshipWeightProperty,
		"nodeKeyProperty":            r.Projection.NodeKeyProperty,
		"communityProperty":          r.Projection.CommunityProperty,
		"valueProperty":              r.Projection.ValueProperty,
		"error":                      r.Error,
		"writeProperty":              r.WriteProperty,
		"scope":                      r.Scope,
		"epoch":                      r.Epoch,
		"releaseId":                  r.ReleaseID,
		"releaseMeta":                r.ReleaseMeta,
		"valuesDigest":               r.ValuesDigest,
		"supersededBy":               r.SupersededBy,
	} {
		if v != "" {
			p[k] = v
		}
	}
	if r.WriteProperty != "" {
		if err := CheckWriteProperty(r.WriteProperty); err != nil {
			return nil, err
		}
		p["runIdProperty"] = RunIDProperty(r.WriteProperty)
	}
	if r.ValuesStored {
		p["valuesStored"] = true
	}
	if r.Attempts > 0 {
		p["attempts"] = int64(r.Attempts)
	}
	for k, v := range map[string]float64{"sigma": r.Sigma, "delta2": r.Delta2, "rho": r.Rho, "epsilon": r.Epsilon, "delta": r.Delta} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &ArgumentError{Param: "run record " + k, Value: v, Reason: "must be finite"}
		}
		if v != 0 {
			p[k] = v
		}
	}
	for k, t := range map[string]time.Time{"startedAt": r.StartedAt, "finishedAt": r.FinishedAt,
		"leaseExpiresAt": r.LeaseExpiresAt, "heartbeatAt": r.HeartbeatAt} {
		if !t.IsZero() {
			p[k] = t.UTC()
		}
	}
	for k, v := range r.Extra {
		if err := CheckIdentifier("property", k); err != nil {
			return nil, err
		}
		if standardRunProps[k] {
			return nil, &ArgumentError{Param: "run record extra property", Value: k, Reason: "clashes with a standard field"}
		}
		p[k] = v
	}
	return p, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RunNotFoundError reports a run id with no run record.
type RunNotFoundError struct {
	RunID, Database string
}

func (e *RunNotFoundError) Error() string {
	return fmt.Sprintf("connector: no run record %q in database %q", e.RunID, e.Database)
}

func (*RunNotFoundError) connectorError() {}

// ReadRun returns the run record runID, typed (*RunNotFoundError when
// there is none). database "" is the client's default.
func (c *Client) ReadRun(ctx context.Context, database, runID string) (*RunRecord, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	p, err := c.ReadRunRecord(ctx, db, runID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &RunNotFoundError{RunID: runID, Database: db}
	}
	r := runRecordFrom(p)
	r.Database = db
	return r, nil
}

// runRecordFrom types the stored properties of a run record.
func runRecordFrom(p map[string]any) *RunRecord {
	str := func(k string) string { s, _ := p[k].(string); return s }
	num := func(k string) float64 {
		switch v := p[k].(type) {
		case float64:
			return v
		case int64:
			return float64(v)
		}
		return 0
	}
	integer := func(k string) int64 { v, _ := p[k].(int64); return v }
	when := func(k string) time.Time {
		switch v := p[k].(type) {
		case time.Time:
			return v.UTC()
		case dbtype.LocalDateTime:
			return time.Time(v).UTC()
		}
		return time.Time{}
	}
	strs := func(k string) []string {
		var out []string
		if l, ok := p[k].([]any); ok {
			for _, v := range l {
				if s, ok := v.(string); ok {
					out = append(out, s)
				}
			}
		}
		return out
	}
	r := &RunRecord{
		RunID: str("runId"), Command: str("command"), Status: str("status"), Error: str("error"),
		Projection: Projection{NodeLabels: strs("nodeLabels"), RelationshipTypes: strs("relationshipTypes"),
			RelationshipWeightProperty: str("relationshipWeightProperty"), NodeKeyProperty: str("nodeKeyProperty"),
			CommunityProperty: str("communityProperty"), ValueProperty: str("valueProperty")},
		WriteProperty: str("writeProperty"), Scope: str("scope"), Epoch: str("epoch"), ReleaseID: str("releaseId"),
		ReleaseMeta: str("releaseMeta"), ValuesDigest: str("valuesDigest"), SupersededBy: str("supersededBy"), Attempts: int(integer("attempts")),
		LeaseExpiresAt: when("leaseExpiresAt"), HeartbeatAt: when("heartbeatAt"),
		Sigma: num("sigma"), Delta2: num("delta2"), Rho: num("rho"), Epsilon: num("epsilon"), Delta: num("delta"),
		NodeCount: int(integer("nodeCount")), RelationshipCount: int(integer("relationshipCount")),
		NodePropertiesWritten: int(integer("nodePropertiesWritten")),
		ComputeMillis:         integer("computeMillis"), WriteMillis: integer("writeMillis"),
		StartedAt: when("startedAt"), FinishedAt: when("finishedAt"),
	}
	r.ValuesStored, _ = p["valuesStored"].(bool)
	if s := str("parameters"); s != "" && s != "{}" {
		_ = json.Unmarshal([]byte(s), &r.Parameters)
	}
	for k, v := range p {
		if !standardRunProps[k] {
			if r.Extra == nil {
				r.Extra = map[string]any{}
			}
			r.Extra[k] = v
		}
	}
	return r
}

// ReadRunRecord returns the raw properties of the run record runID (nil,
// nil when there is none), for ad-hoc inspection. Commands use ReadRun.
func (c *Client) ReadRunRecord(ctx context.Context, database, runID string) (map[string]any, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	return runRead(ctx, c, db, "read run record", func(ctx context.Context, tx neo4j.ManagedTransaction) (map[string]any, error) {
		res, err := tx.Run(ctx, "MATCH (r:"+RunRecordLabel+" {runId: $id}) RETURN properties(r) AS p", map[string]any{"id": runID})
		if err != nil {
			return nil, err
		}
		if !res.Next(ctx) {
			return nil, res.Err()
		}
		p, _ := res.Record().Values[0].(map[string]any)
		return p, res.Err()
	})
}

// exec runs one query in a managed write transaction and returns its
// records (the work is retried, so query must be idempotent or guarded).
func (c *Client) exec(ctx context.Context, db, op, query string, params map[string]any) ([]*neo4j.Record, error) {
	return runWrite(ctx, c, db, op, func(ctx context.Context, tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
}

// ensureConstraints creates graphcloak's uniqueness constraints once per
// client and database (CREATE CONSTRAINT … IF NOT EXISTS; schema changes
// need their own transaction).
func (c *Client) ensureConstraints(ctx context.Context, db string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.constrained[db] {
		return nil
	}
	for _, q := range []string{
		"CREATE CONSTRAINT graphcloak_run_id IF NOT EXISTS FOR (r:" + RunRecordLabel + ") REQUIRE r.runId IS UNIQUE",
		"CREATE CONSTRAINT graphcloak_ledger_scope IF NOT EXISTS FOR (l:" + LedgerLabel + ") REQUIRE l.scope IS UNIQUE",
		"CREATE CONSTRAINT graphcloak_charge_id IF NOT EXISTS FOR (c:" + ChargeLabel + ") REQUIRE c.chargeId IS UNIQUE",
		"CREATE CONSTRAINT graphcloak_scope_lease IF NOT EXISTS FOR (l:" + ScopeLeaseLabel + ") REQUIRE l.scope IS UNIQUE",
		"CREATE CONSTRAINT graphcloak_output_property IF NOT EXISTS FOR (o:" + OutputLabel + ") REQUIRE o.property IS UNIQUE",
		"CREATE CONSTRAINT graphcloak_values_chunk IF NOT EXISTS FOR (v:" + ValuesLabel + ") REQUIRE (v.runId, v.chunk) IS UNIQUE",
	} {
		_, err := runWrite(ctx, c, db, "create constraint", func(ctx context.Context, tx neo4j.ManagedTransaction) (struct{}, error) {
			res, err := tx.Run(ctx, q, nil)
			if err != nil {
				return struct{}{}, err
			}
			_, err = res.Consume(ctx)
			return struct{}{}, err
		})
		if err != nil {
			// A concurrent process may have created it first.
			var qe *QueryError
			if !(errors.As(err, &qe) && qe.Code == "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists") {
				return err
			}
		}
	}
	if c.constrained == nil {
		c.constrained = map[string]bool{}
	}
	c.constrained[db] = true
	return nil
}

// OutputConflictError reports an output property that would overwrite
// something graphcloak reads or another output: a node key, the raw
// readings, the communities it reads, or another output of the same run.
type OutputConflictError struct {
	Flag, Name, With string
}

func (e *OutputConflictError) Error() string {
	return fmt.Sprintf("connector: %s %q is %s: writing it would overwrite them", e.Flag, e.Name, e.With)
}

// RenderText is the message with a projection's read role (ReadRole)
// naming its parameter as name does.
func (e *OutputConflictError) RenderText(name func(errkind.Param) string) string {
	with := e.With
	if r := ReadRole(with); r != nil {
		with = r.RenderText(name)
	}
	return fmt.Sprintf("connector: %s %q is %s: writing it would overwrite them", e.Flag, e.Name, with)
}

// readRoles are what the properties of a projection that a run reads are,
// each naming its parameter.
var readRoles = []errkind.Renderer{
	errkind.Errorf("the node key property (%s)", ParamNodeKey).(errkind.Renderer),
	errkind.Errorf("the raw readings (%s)", ParamValueProperty).(errkind.Renderer),
	errkind.Errorf("the communities read (%s)", ParamCommunityProperty).(errkind.Renderer),
}

// ReadRole is the read role whose text is what (a ReadProperties value),
// or nil when what is not one.
func ReadRole(what string) errkind.Renderer {
	for _, r := range readRoles {
		if r.Error() == what {
			return r
		}
	}
	return nil
}

// Kind: a usage error the user fixes by naming another property.
func (*OutputConflictError) Kind() errkind.Kind { return errkind.BadInput }

// ReadProperties returns the node properties a run reads from the
// projection (name → what it is), for CheckOutputs; extra adds others
// (e.g. a release's property that locate reads).
func ReadProperties(p Projection, extra map[string]string) map[string]string {
	read := map[string]string{}
	for i, name := range []string{p.NodeKeyProperty, p.ValueProperty, p.CommunityProperty} {
		if name != "" {
			read[name] = readRoles[i].Error()
		}
	}
	for name, what := range extra {
		if name != "" {
			read[name] = what
		}
	}
	return read
}

// CheckOutputs refuses output properties (flag → name, "" entries
// skipped) that equal a property the run reads (ReadProperties) or each
// other, or whose run-id companion (RunIDProperty, when bound is true for
// that flag) does.
func CheckOutputs(read map[string]string, outputs map[string]string, bound map[string]bool) error {
	flags := make([]string, 0, len(outputs))
	for f := range outputs {
		flags = append(flags, f)
	}
	slices.Sort(flags)
	written := map[string]string{}
	for _, f := range flags {
		names := []string{outputs[f]}
		if bound[f] && outputs[f] != "" {
			names = append(names, RunIDProperty(outputs[f]))
		}
		for _, n := range names {
			if n == "" {
				continue
			}
			if what, ok := read[n]; ok {
				return &OutputConflictError{Flag: f, Name: n, With: what}
			}
			if other, ok := written[n]; ok {
				return &OutputConflictError{Flag: f, Name: n, With: "also written by " + other}
			}
			written[n] = f
		}
	}
	return nil
}
