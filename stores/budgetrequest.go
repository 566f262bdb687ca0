package stores

import (
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// Parameters a budget request names (errkind.Param) besides job's.
const (
	ParamInit        errkind.Param = "init"
	ParamAnswerDelta errkind.Param = "answer-delta"
	ParamDriftHops   errkind.Param = "drift-hops"
)

// BudgetRequest is what the operator asks of a ledger (budget): its
// report, and with Init the configured scope created with the configured
// totals and the answers' shares, fixed at creation.
type BudgetRequest struct {
	Init                       bool
	AnswerEpsilon, AnswerDelta float64
	// Sensor is the deployment's sensor model (with Init: kept with the
	// budget, privacy.Budget.Sensor).
	Sensor privacy.SensorModel
	// DriftHops is the sensor model's drift allowance (with a model:
	// privacy.SensorModel.DriftHops); DriftHopsGiven says it was asked
	// for, which needs a model.
	DriftHops      int
	DriftHopsGiven bool
}

// BudgetSpec is what a ledger report shows — Scope ("": every scope) —
// and the budget Create (nil: none) the scope is created with first
// (Stores.LedgerReport).
type BudgetSpec struct {
	Scope  string
	Create *privacy.Budget
}

// Check checks r against the configuration before the ledger is opened:
// the scope given, or with Init the configured one, and the budget Init
// creates it with.
func (r BudgetRequest) Check(cfg *config.Loaded) (BudgetSpec, error) {
	s := BudgetSpec{Scope: cfg.GivenScope()}
	if r.Init { // --init shows the scope it creates
		s.Scope = cfg.Privacy.Scope
	}
	if err := privacy.CheckName("scope", cfg.Privacy.Scope); err != nil {
		return BudgetSpec{}, errkind.Inputf("%s: %w", job.ParamScope, err)
	}
	if r.AnswerEpsilon != 0 && !r.Init {
		return BudgetSpec{}, errkind.Usagef("%s is fixed when the scope is created: give it with %s (the ledger shows it after)", job.ParamAnswerEpsilon, ParamInit)
	}
	if r.AnswerDelta != 0 && !r.Init {
		return BudgetSpec{}, errkind.Usagef("%s is fixed when the scope is created: give it with %s (the ledger shows it after)", ParamAnswerDelta, ParamInit)
	}
	if !r.Sensor.IsZero() && !r.Init {
		return BudgetSpec{}, errkind.Usagef("the sensor model is fixed when the scope is created: give it with %s (the ledger shows it after)", ParamInit)
	}
	if r.DriftHopsGiven && r.Sensor.IsZero() {
		return BudgetSpec{}, errkind.Usagef("%s goes with a sensor model (%s with %s): it is the model's allowance for readings outside it", ParamDriftHops, ParamInit, recovery.ParamSensorNoise)
	}
	if !r.Sensor.IsZero() {
		r.Sensor.DriftHops = r.DriftHops
	}
	if r.Init {
		var err error
		if s.Create, err = r.initBudget(&cfg.Config); err != nil {
			return BudgetSpec{}, err
		}
	}
	return s, nil
}

// initBudget is the budget Init creates the configured scope with (or
// checks it has): the configured totals and the answers' share.
func (r BudgetRequest) initBudget(cfg *config.Config) (*privacy.Budget, error) {
	budget := privacy.Budget{Epsilon: cfg.Privacy.EpsilonTotal, Delta: cfg.Privacy.DeltaTotal, AnswerEpsilon: r.AnswerEpsilon, AnswerDelta: r.AnswerDelta, Sensor: r.Sensor}
	if budget.Epsilon == 0 || budget.Delta == 0 {
		return nil, errkind.Usagef("%s needs the scope's lifetime budget: give %s and %s (or privacy.epsilonTotal and privacy.deltaTotal in the configuration); there is no default budget",
			privacy.ParamCreateLedger, job.ParamEpsilonTotal, job.ParamDeltaTotal)
	}
	if err := budget.Validate(); err != nil {
		return nil, errkind.Input(err)
	}
	return &budget, nil
}
