package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Labels of the ledger's nodes.
const (
	LedgerLabel = "GraphcloakLedger"
	ChargeLabel = "GraphcloakCharge"
)

// Ledger is a privacy.Ledger kept in Neo4j, so that every process
// releasing from one database shares one budget:
//
//	(:GraphcloakLedger {scope, spent, pureRho, pureEpsilon, answerDeltaSpent, rhoSpent, rhoBudget, epsilon, delta, answerEpsilon, answerDelta, sensorModel, releases})
//	(:GraphcloakCharge {chargeId, scope, releaseId, rho, epsilon, delta, chargedAt})
//
// spent is the exact sum of the charges' ρ as a rational "a/b" (each
// float64 ρ is exact in binary), so no rounding accumulates; pureRho and
// pureEpsilon are the exact sums of the ρ and ε of the pure ε-DP charges
// (answers; absent on scopes that never had one, and on charges that are
// not pure: privacy.Spend); rhoSpent is spent rounded up, for people.
// answerEpsilon is the answers' share ε_A of the budget
// (privacy.Budget.AnswerEpsilon), absent on scopes created without one
// (read as 0: answers in zCDP). answerDelta is the answers' δ share δ_A
// (privacy.Budget.AnswerDelta) and answerDeltaSpent the exact Σδ₀ of the
// answers charged (an answer's δ₀ on its charge as delta), both absent on
// scopes that never had them (read as 0). sensorModel is the scope's
// sensor model (privacy.Budget.Sensor) as JSON, absent on scopes created
// without one (read as no model).
// Uniqueness constraints on scope and chargeId make MERGE race-free.
//
// Only InitScope (the budget --init command) creates a scope node, with
// its budget; Charge and Balance refuse a scope that does not exist
// (privacy.ErrNoScope), so a release never creates, raises or resets a
// budget.
//
// Charge runs in ONE managed write transaction: it matches the scope node
// and takes its write lock (SET of a lock counter) before reading the
// spend, so concurrent charges on a scope serialise and none can overspend;
// the check (already charged? over budget?) and the update commit
// together or not at all. A charge is never refunded.
type Ledger struct {
	c        *Client
	db       string
	readOnly bool
}

var _ privacy.Ledger = (*Ledger)(nil)

// NewLedger returns the Neo4j ledger of database ("" = the client's
// default), creating the uniqueness constraints it relies on. It creates
// no scope.
func NewLedger(ctx context.Context, c *Client, database string) (*Ledger, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	if err := c.ensureConstraints(ctx, db); err != nil {
		return nil, err
	}
	return &Ledger{c: c, db: db}, nil
}

// ReadLedger returns the Neo4j ledger of database ("" = the client's
// default) for Balance and Charged only (a dry run): it creates no
// constraint and its Charge is refused (privacy.ErrReadOnly), so reading
// it writes nothing to the database.
func ReadLedger(c *Client, database string) (*Ledger, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	return &Ledger{c: c, db: db, readOnly: true}, nil
}

// InitScope creates the (:GraphcloakLedger {scope}) node with budget if it
// does not exist (idempotent). A scope that exists with another budget is
// refused with an error wrapping privacy.ErrBudgetMismatch: a budget is
// never changed.
func (l *Ledger) InitScope(ctx context.Context, scope string, budget privacy.Budget) error {
	if err := privacy.CheckName("scope", scope); err != nil {
		return err
	}
	rhoMax, err := budget.Rho()
	if err != nil {
		return err
	}
	recs, err := l.c.exec(ctx, l.db, "initialise privacy ledger scope",
		"MERGE (l:"+LedgerLabel+" {scope: $scope}) "+
			"ON CREATE SET l.spent = '0', l.rhoSpent = 0.0, l.releases = 0, "+
			"l.rhoBudget = $rhoMax, l.epsilon = $eps, l.delta = $delta, l.answerEpsilon = $epsA, l.answerDelta = $deltaA, l.sensorModel = $sensor, l.accounting = $acct, l.createdAt = datetime() "+
			"RETURN l.epsilon, l.delta, coalesce(l.answerEpsilon, 0.0), coalesce(l.answerDelta, 0.0), coalesce(l.sensorModel, '')",
		map[string]any{"scope": scope, "rhoMax": rhoMax, "eps": budget.Epsilon, "delta": budget.Delta, "epsA": budget.AnswerEpsilon, "deltaA": budget.AnswerDelta,
			"sensor": sensorModelProperty(budget.Sensor), "acct": privacy.AccountingCKS20})
	if err != nil {
		return err
	}
	eps, _ := recs[0].Values[0].(float64)
	delta, _ := recs[0].Values[1].(float64)
	epsA, _ := recs[0].Values[2].(float64)
	deltaA, _ := recs[0].Values[3].(float64)
	sensorS, _ := recs[0].Values[4].(string)
	sensor, err := parseSensorModel(scope, sensorS)
	if err != nil {
		return err
	}
	if stored := (privacy.Budget{Epsilon: eps, Delta: delta, AnswerEpsilon: epsA, AnswerDelta: deltaA, Sensor: sensor}); stored != budget {
		return fmt.Errorf("%w: scope %q in database %q was created with %v, not %v; a budget is never changed",
			privacy.ErrBudgetMismatch, scope, l.db, stored, budget)
	}
	return nil
}

// lockScope write-locks the ledger node of scope for the transaction and
// reports whether it exists.
func lockScope(ctx context.Context, tx neo4j.ManagedTransaction, scope string) (bool, error) {
	res, err := tx.Run(ctx, "MATCH (l:"+LedgerLabel+" {scope: $scope}) "+
		"SET l.lockCount = coalesce(l.lockCount, 0) + 1 RETURN count(l)", map[string]any{"scope": scope})
	if err != nil {
		return false, err
	}
	lrec, err := res.Single(ctx)
	if err != nil {
		return false, err
	}
	n, _ := lrec.Values[0].(int64)
	return n == 1, nil
}

// Charge implements privacy.Ledger.
func (l *Ledger) Charge(ctx context.Context, ch privacy.Charge) error {
	if err := ch.Validate(); err != nil {
		return err
	}
	if l.readOnly {
		return fmt.Errorf("%w: database %q", privacy.ErrReadOnly, l.db)
	}
	idb, _ := json.Marshal([]string{ch.Scope, ch.ReleaseID})
	chargeID := string(idb)
	type outcome struct {
		dup    bool
		budget *privacy.BudgetError
		other  error
	}
	// The outcome of a refusal travels outside the transaction function,
	// because ExecuteWrite drops the value returned with an error (the
	// error rolls the transaction back).
	var o outcome
	_, err := runWrite(ctx, l.c, l.db, "charge privacy ledger", func(ctx context.Context, tx neo4j.ManagedTransaction) (struct{}, error) {
		o = outcome{}
		refuse := func(r outcome) (struct{}, error) { o = r; return struct{}{}, errRollback }
		// 1. Lock the scope node (created only by InitScope) for this transaction.
		if found, err := lockScope(ctx, tx, ch.Scope); err != nil {
			return struct{}{}, err
		} else if !found {
			return refuse(outcome{other: fmt.Errorf("connector: ledger database %q scope %q: %w", l.db, ch.Scope, privacy.ErrNoScope)})
		}
		// 2. Read the state under the lock.
		res, err := tx.Run(ctx, "MATCH (l:"+LedgerLabel+" {scope: $scope}) "+
			"OPTIONAL MATCH (c:"+ChargeLabel+" {chargeId: $cid}) "+
			"RETURN l.spent AS spent, l.rhoBudget AS rhoMax, l.epsilon AS eps, l.delta AS delta, c IS NOT NULL AS dup, "+
			"coalesce(l.pureRho, '0') AS pureRho, coalesce(l.pureEpsilon, '0') AS pureEpsilon, l.releases AS releases, "+
			"coalesce(l.answerEpsilon, 0.0) AS answerEpsilon, coalesce(l.answerDelta, 0.0) AS answerDelta, "+
			"coalesce(l.answerDeltaSpent, '0') AS answerDeltaSpent",
			map[string]any{"scope": ch.Scope, "cid": chargeID})
		if err != nil {
			return struct{}{}, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return struct{}{}, err
		}
		spentS, _ := rec.Values[0].(string)
		rhoMax, _ := rec.Values[1].(float64)
		eps, _ := rec.Values[2].(float64)
		delta, _ := rec.Values[3].(float64)
		dup, _ := rec.Values[4].(bool)
		epsA, _ := rec.Values[8].(float64)
		deltaA, _ := rec.Values[9].(float64)
		deltaS, _ := rec.Values[10].(string)
		stored := privacy.Budget{Epsilon: eps, Delta: delta, AnswerEpsilon: epsA, AnswerDelta: deltaA}
		// ρ_max is 0 only when the answers' share leaves no Gaussian release.
		if stored.Validate() != nil || !(rhoMax > 0 || rhoMax == 0 && epsA > 0) {
			return refuse(outcome{other: fmt.Errorf("connector: ledger scope %q is corrupt: budget %v, ρ_max=%g", ch.Scope, stored, rhoMax)})
		}
		if dup {
			return refuse(outcome{dup: true})
		}
		pureRhoS, _ := rec.Values[5].(string)
		pureEpsS, _ := rec.Values[6].(string)
		releases, _ := rec.Values[7].(int64)
		spend, err := spendOf(ch.Scope, spentS, pureRhoS, pureEpsS, deltaS)
		if err != nil {
			return refuse(outcome{other: err})
		}
		if err := stored.Admit(rhoMax, ch.Scope, int(releases), spend, ch); err != nil {
			var be *privacy.BudgetError
			if errors.As(err, &be) {
				return refuse(outcome{budget: be})
			}
			return refuse(outcome{other: err})
		}
		spend.Add(ch)
		// 3. Record the charge and the new spend.
		params := map[string]any{"scope": ch.Scope, "cid": chargeID, "rid": ch.ReleaseID, "rho": ch.Rho,
			"now": time.Now().UTC(), "spent": spend.Rho().RatString(), "rhoSpent": ratUp(spend.Rho())}
		pure := ""
		if ch.Epsilon > 0 {
			pure = ", c.epsilon = $eps, l.pureRho = $pureRho, l.pureEpsilon = $pureEps"
			params["eps"], params["pureRho"], params["pureEps"] = ch.Epsilon, spend.PureRho().RatString(), spend.PureEpsilon().RatString()
		}
		if ch.Delta > 0 {
			pure += ", c.delta = $chDelta, l.answerDeltaSpent = $deltaSpent"
			params["chDelta"], params["deltaSpent"] = ch.Delta, spend.Delta().RatString()
		}
		res, err = tx.Run(ctx, "MATCH (l:"+LedgerLabel+" {scope: $scope}) "+
			"CREATE (c:"+ChargeLabel+" {chargeId: $cid, scope: $scope, releaseId: $rid, rho: $rho, chargedAt: $now}) "+
			"SET l.spent = $spent, l.rhoSpent = $rhoSpent, l.releases = l.releases + 1, l.updatedAt = $now"+pure,
			params)
		if err != nil {
			return struct{}{}, err
		}
		_, err = res.Consume(ctx)
		return struct{}{}, err
	})
	if errors.Is(err, errRollback) {
		err = nil
	}
	switch {
	case err != nil:
		return err
	case o.dup:
		return fmt.Errorf("connector: ledger %q scope %q release %q: %w", l.db, ch.Scope, ch.ReleaseID, privacy.ErrAlreadyCharged)
	case o.budget != nil:
		return o.budget
	case o.other != nil:
		return o.other
	}
	return nil
}

// errRollback makes a transaction function roll back (nothing written)
// while its outcome is reported separately.
var errRollback = errors.New("connector: rollback")

// Charged implements privacy.ChargeLookup: whether the charge of
// releaseID in scope exists.
func (l *Ledger) Charged(ctx context.Context, scope, releaseID string) (bool, error) {
	idb, _ := json.Marshal([]string{scope, releaseID})
	return runRead(ctx, l.c, l.db, "read privacy ledger", func(ctx context.Context, tx neo4j.ManagedTransaction) (bool, error) {
		res, err := tx.Run(ctx, "MATCH (c:"+ChargeLabel+" {chargeId: $cid}) RETURN count(c) > 0", map[string]any{"cid": string(idb)})
		if err != nil {
			return false, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return false, err
		}
		b, _ := rec.Values[0].(bool)
		return b, nil
	})
}

// Balance implements privacy.Ledger.
func (l *Ledger) Balance(ctx context.Context, scope string) ([]privacy.Balance, error) {
	match, params := "MATCH (l:"+LedgerLabel+") ", map[string]any{}
	if scope != "" {
		match = "MATCH (l:" + LedgerLabel + " {scope: $scope}) "
		params["scope"] = scope
	}
	q := match + "RETURN l.scope, l.spent, l.rhoBudget, l.epsilon, l.delta, l.releases, " +
		"coalesce(l.pureRho, '0'), coalesce(l.pureEpsilon, '0'), coalesce(l.answerEpsilon, 0.0), " +
		"coalesce(l.answerDelta, 0.0), coalesce(l.answerDeltaSpent, '0'), coalesce(l.sensorModel, '')"
	out, err := runRead(ctx, l.c, l.db, "read privacy ledger", func(ctx context.Context, tx neo4j.ManagedTransaction) ([]privacy.Balance, error) {
		res, err := tx.Run(ctx, q, params)
		if err != nil {
			return nil, err
		}
		var out []privacy.Balance
		for res.Next(ctx) {
			v := res.Record().Values
			name, _ := v[0].(string)
			spentS, _ := v[1].(string)
			rhoMax, _ := v[2].(float64)
			eps, _ := v[3].(float64)
			delta, _ := v[4].(float64)
			n, _ := v[5].(int64)
			pureRhoS, _ := v[6].(string)
			pureEpsS, _ := v[7].(string)
			epsA, _ := v[8].(float64)
			deltaA, _ := v[9].(float64)
			deltaS, _ := v[10].(string)
			spend, err := spendOf(name, spentS, pureRhoS, pureEpsS, deltaS)
			if err != nil {
				return nil, err
			}
			sensorS, _ := v[11].(string)
			sensor, err := parseSensorModel(name, sensorS)
			if err != nil {
				return nil, err
			}
			out = append(out, privacy.Budget{Epsilon: eps, Delta: delta, AnswerEpsilon: epsA, AnswerDelta: deltaA, Sensor: sensor}.BalanceOf(name, int(n), rhoMax, spend))
		}
		return out, res.Err()
	})
	if err != nil {
		return nil, err
	}
	if scope != "" && len(out) == 0 {
		return nil, fmt.Errorf("connector: ledger database %q scope %q: %w", l.db, scope, privacy.ErrNoScope)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out, nil
}

// sensorModelProperty is a scope's sensor model as its node keeps it:
// JSON, or null (no property) for no model.
func sensorModelProperty(m privacy.SensorModel) any {
	if m.IsZero() {
		return nil
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// parseSensorModel reads a scope's sensorModel property ("" when absent:
// no model, as on every scope created before models).
func parseSensorModel(scope, s string) (privacy.SensorModel, error) {
	var m privacy.SensorModel
	if s == "" {
		return m, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("connector: ledger scope %q is corrupt: sensor model %q: %w", scope, s, err)
	}
	if err := m.Validate(); err != nil {
		return m, fmt.Errorf("connector: ledger scope %q is corrupt: sensor model %q: %w", scope, s, err)
	}
	return m, nil
}

// spendOf parses a scope's stored sums (rationals "a/b").
func spendOf(scope string, sums ...string) (*privacy.Spend, error) {
	var r [4]*big.Rat
	for i, s := range sums {
		v, ok := new(big.Rat).SetString(s)
		if !ok || v.Sign() < 0 {
			return nil, fmt.Errorf("connector: ledger scope %q is corrupt: spend %q is not a rational ≥ 0", scope, s)
		}
		r[i] = v
	}
	return privacy.SpendOf(r[0], r[1], r[2]).WithDelta(r[3]), nil
}

func ratUp(r *big.Rat) float64 {
	v, exact := r.Float64()
	if !exact && new(big.Rat).SetFloat64(v).Cmp(r) < 0 {
		v = math.Nextafter(v, math.Inf(1))
	}
	return v
}
