package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// RunRecordLabel is the label of run record nodes.
const RunRecordLabel = "GraphcloakRun"

// Run statuses. A run is created "running", and set to "succeeded" only
// after every property has been written, so a crashed or killed run never
// looks successful.
const (
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
)

// RunRecord is one graphcloak run as stored in a (:GraphcloakRun) node,
// keyed by RunID (unique). Property names follow GDS where GDS has one
// (nodePropertiesWritten, computeMillis, writeMillis).
//
// Never put secrets (passwords, noise keys) in any field: everything here
// is readable by every database user.
type RunRecord struct {
	RunID   string // required; unique per run
	Command string // "release", "locate", …
	Status  string // StatusRunning, StatusSucceeded or StatusFailed
	Error   string // the failure, for StatusFailed (no secrets)
	// Database where the record is written; "" means the client's default.
	Database string
	// Projection read; stored as nodeLabels, relationshipTypes, … .
	Projection Projection
	// Parameters are the run's other settings, stored as one JSON string
	// property "parameters".
	Parameters map[string]any
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
	// values bool, int64, float64, string or slices of those).
	Extra map[string]any
}

// WriteRunRecord creates or updates the (:GraphcloakRun {runId}) node with
// every field of r (MERGE on runId, then SET +=), in one write
// transaction. Call it with Status "running" before writing properties
// and again with "succeeded" (or "failed") after the last batch.
func (c *Client) WriteRunRecord(ctx context.Context, r RunRecord) error {
	if r.RunID == "" {
		return &ArgumentError{Param: "run id", Reason: "must not be empty"}
	}
	switch r.Status {
	case StatusRunning, StatusSucceeded, StatusFailed:
	default:
		return &ArgumentError{Param: "run status", Value: r.Status, Reason: "must be running, succeeded or failed"}
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
	const query = "MERGE (r:" + RunRecordLabel + " {runId: $id}) SET r += $props"
	_, err = runWrite(ctx, c, db, "write run record", func(tx neo4j.ManagedTransaction) (struct{}, error) {
		res, err := tx.Run(ctx, query, map[string]any{"id": r.RunID, "props": props})
		if err != nil {
			return struct{}{}, err
		}
		_, err = res.Consume(ctx)
		return struct{}{}, err
	})
	return err
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
	} {
		if v != "" {
			p[k] = v
		}
	}
	for k, v := range map[string]float64{"sigma": r.Sigma, "delta2": r.Delta2, "rho": r.Rho, "epsilon": r.Epsilon, "delta": r.Delta} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &ArgumentError{Param: "run record " + k, Value: v, Reason: "must be finite"}
		}
		if v != 0 {
			p[k] = v
		}
	}
	if !r.StartedAt.IsZero() {
		p["startedAt"] = r.StartedAt.UTC()
	}
	if !r.FinishedAt.IsZero() {
		p["finishedAt"] = r.FinishedAt.UTC()
	}
	for k, v := range r.Extra {
		if err := checkIdentifier("property", k); err != nil {
			return nil, err
		}
		if _, clash := p[k]; clash || k == "runId" {
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

// ReadRunRecord returns the properties of the run record runID (nil, nil
// when there is none), for reports and tests.
func (c *Client) ReadRunRecord(ctx context.Context, database, runID string) (map[string]any, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	return runRead(ctx, c, db, "read run record", func(tx neo4j.ManagedTransaction) (map[string]any, error) {
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
	} {
		_, err := runWrite(ctx, c, db, "create constraint", func(tx neo4j.ManagedTransaction) (struct{}, error) {
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
