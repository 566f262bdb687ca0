package job

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// AnswerSpec is one private answer as asked for (a command's, or one
// slot of a scheduled service), after the command has parsed its
// flags and read its local files (the noise key): the graph, the
// parameters, and the ledger scope and epoch that pay for it.
type AnswerSpec struct {
	// RunID names the run record (Neo4j only).
	RunID string
	// Graph and Communities describe the inputs for the summary and the
	// run record ("neo4j", "karate"; "leiden", "property:c").
	Graph, Communities string
	// Neo4j records the answer on a run record in Database.
	Neo4j      bool
	Database   string
	Projection connector.Projection
	// Scope is charged under Epoch (required by PlanAnswer: the command
	// names one, a service the slot's).
	Scope, Epoch string
	// τ of the readings, α hops of the guarantee ε, the distance cap of
	// the mechanism (0: the most accurate); δ of the forecast only.
	Tau, Alpha, Epsilon, Delta float64
	Cap                        int
	// FitTolerance is the certifier's relative misfit T (0: the default),
	// or SensorNoise (> 0) the sensors' stated noise bound ν it is derived
	// from; OnMismatch what readings outside the model get ("refuse",
	// "rr"). Diagnose asks for what was measured of readings outside the
	// model (not private: the operator's terminal only, never the summary).
	FitTolerance, SensorNoise float64
	// SensorNoiseRMS and MinSourceMass state the noise in reading units
	// instead: SensorNoise is then s·n/m on the graph loaded
	// (recovery.SensorNoiseFromRMS).
	SensorNoiseRMS, MinSourceMass float64
	// Stated is the sensor model the answer states (nil: none; its noise
	// is SensorNoise, SensorNoiseRMS and MinSourceMass), FitToleranceGiven
	// whether it gave FitTolerance: on a scope with a sensor model
	// (privacy.Budget.Sensor) both must say nothing or the scope's model
	// (PlanAnswer refuses any other before a reading is read), and the
	// answer runs under the scope's model.
	// OnMismatchGiven says OnMismatch was asked for: a scope with a sensor
	// model answers with answer.MismatchNearest, and refuses another.
	Stated                             *privacy.SensorModel
	FitToleranceGiven, OnMismatchGiven bool
	OnMismatch                         string
	Diagnose                           bool
	// DriftHops is the scope's drift allowance (set from its sensor
	// model): the mechanism is calibrated at answer.CalibrationAlpha and
	// answer.CalibrationCap (randomized response under privacy.DriftAny).
	DriftHops int
	// CachePath stores the answer model (the certifier's pass and the
	// classes, answer.Cache) for reuse while it verifies against
	// the graph, τ, T and Software; LedgerKey authenticates it.
	CachePath string
	// Store, when CachePath is "", is the work store the certificate,
	// calibrations and audits are kept in (plan's, shared by every
	// command; nil: none).
	Store     *WorkCache
	LedgerKey *privacy.Key
	Software  string
	// Memo keeps the model's state between the slots of one process
	// (serve), with or without CachePath.
	Memo *answer.Memo
	// Estimator recovers the source; Seed seeds Leiden and the forecast.
	Estimator string
	Seed      uint64
	// Noise draws the answer (crypto/rand or the keyed stream).
	Noise privacy.NoiseSource
	// ForecastTrials simulated sources forecast the answer's accuracy
	// (0: none).
	ForecastTrials int
	// Lease is the run record's lease.
	Lease time.Duration
	// DryRun plans only: the ledger is read, never charged; nothing is
	// drawn or written.
	DryRun bool
}

// Check validates the parameters: nothing is read, claimed or charged
// before they are. The epoch is not one of them: a service names one at
// every slot, and PlanAnswer requires it.
func (s *AnswerSpec) Check() error {
	if s.Cap < 0 || s.Cap > privacy.MaxAnswerCap {
		return errkind.Inputf("%s must be in 0..%d, got %d", ParamAnswerCap, privacy.MaxAnswerCap, s.Cap)
	}
	if err := errkind.CheckPositive("epsilon", s.Epsilon); err != nil {
		return err
	}
	return errkind.CheckPositive("tau", s.Tau)
}

// runRecord is the run record an answer starts ("answer", with the
// slot's scope and epoch). tol is the fit tolerance the model runs at:
// the one --sensor-noise derived, not the flag's default.
func (s *AnswerSpec) runRecord(tol float64) connector.RunRecord {
	return connector.RunRecord{RunID: s.RunID, Command: answerCommand, Database: s.Database, Projection: s.Projection,
		Scope: s.Scope, Epoch: s.Epoch,
		Parameters: map[string]any{"estimator": s.Estimator, "communities": s.Communities,
			"tau": s.Tau, "alpha": s.Alpha, "answerCap": s.Cap, "fitTolerance": tol, "sensorNoise": s.SensorNoise, "onMismatch": s.OnMismatch, "driftHops": s.DriftHops}}
}

// AnswerSummary is what a private answer did: the output of a private
// answer (its JSON: docs/schemas/locate-private-answer).
type AnswerSummary struct {
	RunID string `json:"runId,omitempty"`
	// DryRun: the plan only (a dry run): Calibration is what the answer
	// would use and charge (its ρ), Balance the scope's before it; no
	// Answer.
	DryRun            bool                       `json:"dryRun"`
	Graph             string                     `json:"graph"`
	NodeCount         int                        `json:"nodeCount"`
	RelationshipCount int                        `json:"relationshipCount"`
	Scope             string                     `json:"scope"`
	Epoch             string                     `json:"epoch"`
	Communities       string                     `json:"communities"`
	Answer            *answer.Result             `json:"answer,omitempty"`
	Calibration       *privacy.AnswerCalibration `json:"calibration,omitempty"`
	// Audit is the end-to-end privacy check of the answer on this graph
	// (every source fitted, every edge's loss): an answer is refused,
	// before anything is charged, when it does not pass.
	Audit    *answer.Audit      `json:"answerAudit,omitempty"`
	Forecast *forecast.Forecast `json:"forecast,omitempty"`
	Balance  *privacy.Balance   `json:"balance,omitempty"`
	// Alpha is the α hops the printed ε is for; DriftHops the scope's
	// drift allowance d, when the mechanism was calibrated at
	// Calibration.alpha = ⌈α⌉·(1+2d) to pay for it.
	Alpha     float64 `json:"alpha"`
	DriftHops int     `json:"driftHops,omitempty"`
}

// AnswerPlan is a checked private answer: the graph, readings and
// communities read, the mechanism calibrated, the charge found
// affordable and its forecast made — everything decided before the run
// is claimed and the ledger charged. ExecuteAnswer carries it out.
type AnswerPlan struct {
	Spec  AnswerSpec
	Input *Input
	// Model is the certified recovery and the geometry the mechanism runs
	// on; Calibration the mechanism (Calibration.Rho is what the ledger
	// will be charged) and Audit its check on every source and edge.
	Model       *answer.Model
	Calibration privacy.AnswerCalibration
	Audit       *answer.Audit
	Forecast    *forecast.Forecast
	// auditKept: Audit was read from the store (an earlier command's).
	auditKept bool
	// sensor is the scope's sensor model (adoptSensorModel; zero: none).
	sensor privacy.SensorModel
	// Summary is the answer as planned (a dry run prints it);
	// ExecuteAnswer completes it.
	Summary *AnswerSummary

	env Env
}

// PlanAnswer checks spec, then reads the graph, the readings and the
// communities (env.Load), calibrates the mechanism on them and checks
// that env.Ledger can pay for it: an epoch already charged is refused
// (exit 7: an epoch's answer is never drawn twice) and a ρ over what is
// left is the budget error (exit 5), both before any run is claimed.
// The forecast is made here too, so that nothing after the charge can
// fail but the bookkeeping.
func PlanAnswer(ctx context.Context, spec AnswerSpec, env Env) (*AnswerPlan, error) {
	if err := spec.Check(); err != nil {
		return nil, err
	}
	if spec.Epoch == "" {
		return nil, errkind.Inputf("job: a private answer needs an epoch")
	}
	if env.Ledger == nil {
		return nil, errors.New("job: a private answer needs a ledger")
	}
	p := &AnswerPlan{Spec: spec, env: env}
	if err := p.notCharged(ctx); err != nil {
		return nil, err
	}
	if err := p.adoptSensorModel(ctx); err != nil { // before the readings are read
		return nil, err
	}
	spec = p.Spec // from here on under the scope's model: its noise and drift allowance
	in, err := env.Load(ctx)
	if err != nil {
		return nil, err
	}
	p.Input = in
	if spec.SensorNoiseRMS > 0 {
		p.Spec.SensorNoise = recovery.SensorNoiseFromRMS(spec.SensorNoiseRMS, spec.MinSourceMass, in.Graph.N())
	}
	if in.Partition == nil { // as answer.Run would: Leiden, kept in the store as plan keeps it
		end := env.phase(fmt.Sprintf("communities (leiden) on %d nodes", in.Graph.N()))
		in.Partition, err = spec.Store.Leiden(ctx, in.Graph, community.LeidenOptions{Seed: spec.Seed})
		end()
		if err != nil {
			return nil, err
		}
		in.Names = nil
	}
	if p.Model, err = p.model(ctx); err != nil {
		return nil, err
	}
	if p.Calibration, err = p.cache().Calibrate(ctx, p.Model, spec.Epsilon, answer.CalibrationAlpha(spec.alpha(), spec.DriftHops), answer.CalibrationCap(spec.Cap, spec.DriftHops), p.env.logger()); err != nil {
		return nil, err
	}
	if err := p.Model.CheckDrift(ctx, p.Calibration, spec.DriftHops); err != nil {
		return nil, err
	}
	if p.Audit, err = p.audit(ctx); err != nil {
		return nil, err
	}
	if !p.Audit.Passed {
		return nil, &answer.AuditError{Audit: p.Audit}
	}
	// A dry run reads no readings (RunAnswer): whether they fit the model
	// is decided, and a refusal recorded, by the charged run alone.
	balance, err := p.affordable(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.forecast(ctx); err != nil {
		return nil, err
	}
	p.Summary = &AnswerSummary{DryRun: spec.DryRun, Graph: spec.Graph, NodeCount: in.Graph.N(), RelationshipCount: in.Graph.NumEdges(),
		Scope: spec.Scope, Epoch: spec.Epoch, Communities: spec.Communities, Forecast: p.Forecast, Audit: p.Audit,
		Alpha: p.Spec.alpha(), DriftHops: p.Spec.DriftHops}
	if spec.DryRun {
		p.Summary.Calibration, p.Summary.Balance = &p.Calibration, balance
	}
	return p, nil
}

// certifierOptions: the spec's fit tolerance, progress as "answer audit"
// (a pass after the first said, its progress its own: auditPasses).
func (p *AnswerPlan) certifierOptions() recovery.CertifierOptions {
	progress, started := auditPasses(p.env.Progress, p.env.PassStarted, p.env.Say, p.Input.Graph)
	return recovery.CertifierOptions{Tol: p.Spec.FitTolerance, SensorNoise: p.Spec.SensorNoise, Progress: progress, Started: started,
		WeakestSignal: p.Spec.weakestSignal(p.Input.Graph, p.Spec.SensorNoise)}
}

// weakestSignal is, with a stated sensor noise ν and the work store, the
// weakest source signal of the certificate at the default T the store
// holds for g (answer.Cache.WeakestSignal), so that the pass of the norms
// is not run again; 0 otherwise.
func (spec *AnswerSpec) weakestSignal(g *laplacian.Graph, nu float64) float64 {
	if nu == 0 || spec.CachePath != "" {
		return 0
	}
	c := spec.Store.Answer(g, spec.Tau, 0, 0)
	if c != nil {
		c.Memo = spec.Memo
	}
	return c.WeakestSignal(g, spec.Tau)
}

// model returns the answer model, restored from the spec's cache when it
// verifies, its pass resumed from a checkpoint beside the cache file
// (answer.Cache.ModelResumable).
func (p *AnswerPlan) model(ctx context.Context) (*answer.Model, error) {
	return p.cache().ModelResumable(ctx, p.Input.Graph, p.Spec.Tau, p.Input.Partition, p.Input.Names, p.certifierOptions(), p.env.logger(),
		resumedPass(p.env.Say))
}

// cache is the spec's answer cache (nil without a path or a memo): the
// model and, beside it, the calibrations made on its geometry.
func (p *AnswerPlan) cache() *answer.Cache {
	s := &p.Spec
	if s.CachePath == "" {
		if c := s.Store.Answer(p.Input.Graph, s.Tau, s.FitTolerance, s.SensorNoise); c != nil {
			c.Memo = s.Memo
			return c
		}
	}
	if s.CachePath == "" && s.Memo == nil {
		return nil
	}
	return &answer.Cache{Path: s.CachePath, MACKey: s.LedgerKey.CertificateMACKey(), Software: s.Software, Memo: s.Memo}
}

// audit is the model's audit of the calibration, kept in the spec's
// store (as plan keeps it) and reused from there while it verifies.
func (p *AnswerPlan) audit(ctx context.Context) (*answer.Audit, error) {
	s := &p.Spec
	memo := s.Store.Audits()
	key := memo.Key(p.Input.Graph, p.Model, s.Tau, s.FitTolerance, s.SensorNoise, p.Input.Partition, p.Calibration)
	if a, ok := memo.Load(p.Input.Graph, key); ok {
		p.auditKept = true
		return a, nil
	}
	a, err := p.Model.Audit(ctx, p.Calibration)
	if err == nil {
		memo.Store(p.Input.Graph, key, a)
	}
	return a, err
}

func (s *AnswerSpec) alpha() float64 {
	if s.Alpha == 0 {
		return 1
	}
	return s.Alpha
}

// notCharged refuses an epoch the ledger charged already.
func (p *AnswerPlan) notCharged(ctx context.Context) error {
	lookup, ok := p.env.Ledger.(privacy.ChargeLookup)
	if !ok {
		return nil // the charge itself refuses it
	}
	charged, err := lookup.Charged(ctx, p.Spec.Scope, p.Spec.Epoch)
	if err != nil || !charged {
		return err
	}
	return errkind.Errorf("scope %q epoch %q: %w (an epoch's answer is drawn once: use a new %s)", p.Spec.Scope, p.Spec.Epoch, privacy.ErrAlreadyCharged, ParamEpoch)
}

// affordable refuses a charge over the scope's budget left, and returns
// the scope's balance (nil: the ledger did not give one).
func (p *AnswerPlan) affordable(ctx context.Context) (*privacy.Balance, error) {
	s := &p.Spec
	b, err := p.env.Ledger.Balance(ctx, s.Scope)
	if err != nil || len(b) != 1 {
		return nil, err
	}
	if c := answer.AnswerCharge(p.Model, p.Calibration, s.Scope, s.Epoch); !b[0].Admits(c) {
		return nil, privacy.NewBudgetError(c, b[0])
	}
	return &b[0], nil
}

// forecast is the answer's forecast (ForecastTrials > 0 asks for one):
// the audit's exact rates over every source, as plan's row for this ε
// (forecast.ExactAnswer) — the audit passed, or nothing is answered — so
// locate forecasts what plan forecast: on a scope with a sensor model,
// the rate simulated under the model's faults (sensorTrials), dry run or
// not. The audit covers every node even where sources merged.
func (p *AnswerPlan) forecast(ctx context.Context) error {
	s, in := &p.Spec, p.Input
	if s.ForecastTrials <= 0 {
		return nil
	}
	e := forecast.Simulation{Graph: in.Graph, Partition: in.Partition, Tau: s.Tau, Sources: 1, Trials: s.ForecastTrials,
		Estimator: s.Estimator, Seed: s.Seed, Delta: s.Delta}
	if a := p.Audit; a != nil && a.Passed && len(a.OwnCommunity()) == in.Graph.N() {
		f, err := forecast.ExactAnswer(e, forecast.AnswerAudit{Mechanism: p.Calibration.Mechanism, Epsilon: p.Calibration.Epsilon,
			Alpha: p.Calibration.Alpha, Accuracy: a.Accuracy, PerNode: a.OwnCommunity(), In90Rate: a.In90Rate, In90Size: a.In90Size})
		if err != nil {
			return err
		}
		f.Reused = p.auditKept
		st := sensorTrials{Sensor: p.sensor, Trials: s.ForecastTrials, Seed: s.Seed}
		if err := st.forecast(ctx, &f, p.Model, p.Calibration, a); err != nil {
			return err
		}
		p.Forecast = &f
		return nil
	}
	if p.Model.Geometry.N() != in.Graph.N() {
		return nil // merged sources: the simulation runs on the graph's own nodes
	}
	r, err := forecast.SimulateAnswer(ctx, forecast.AnswerSimulation{Graph: &e, Geometry: p.Model.Geometry, Calibrate: &p.Calibration})
	if err != nil {
		return err
	}
	f := forecast.OfAnswer(r)
	p.Forecast = &f
	return nil
}

// ExecuteAnswer carries out the plan p, in the order that keeps every
// stop in a documented state (AnswerState): on a database the run record
// is claimed first ("running", with a lease); then answer.Run
// charges the ledger and draws (the charge before the draw); the answer
// is recorded on the run, which is marked succeeded last — the run
// record is the answer's publication. A failure after the claim is
// recorded on the run within env.Bookkeeping's deadline. A stop after the
// charge loses the epoch's answer: a retry is refused as already charged,
// never drawn again. The raw readings are cleared once drawn.
func ExecuteAnswer(ctx context.Context, p *AnswerPlan) (sum *AnswerSummary, err error) {
	s, env, in := &p.Spec, &p.env, p.Input
	defer clear(in.Readings)
	if s.DryRun {
		return p.Summary, errors.New("job: a dry run's plan is printed, never executed")
	}
	// A run that failed after the charge (sum set) reports the balance as
	// it is then, read last, within the bookkeeping deadline.
	defer func() {
		if err == nil || sum == nil {
			return
		}
		if b, berr := env.Ledger.Balance(env.bookkeeping(ctx), s.Scope); berr == nil && len(b) == 1 {
			sum.Balance = &b[0]
		}
	}()
	var run Run
	if s.Neo4j {
		if run, err = env.Backend.StartRun(ctx, s.runRecord(p.Model.Certifier.Tol()), s.Lease); err != nil {
			return nil, err
		}
		defer func() { recordFailure(env.bookkeeping(ctx), env.logger(), run, err) }()
	}
	res, err := answer.Run(ctx, answer.Request{Graph: in.Graph, Values: in.Readings, Tau: s.Tau,
		Epsilon: s.Epsilon, Alpha: s.Alpha, DriftHops: s.DriftHops, Cap: s.Cap, Partition: in.Partition, Names: in.Names, Seed: s.Seed,
		Model: p.Model, Audited: p.Audit, Calibrated: p.Calibration, FitTolerance: s.FitTolerance, SensorNoise: s.SensorNoise, Diagnose: s.Diagnose, OnMismatch: s.OnMismatch, Ledger: env.Ledger, Scope: s.Scope, Epoch: s.Epoch, Noise: s.Noise})
	if err != nil {
		return nil, err
	}
	sum = p.Summary
	sum.Answer = res
	// The budget left after the charge, read under the run's context as a
	// release reads it (noteBalance), not the bookkeeping deadline: the run
	// goes on to publish under ctx anyway, and a slow but live server
	// (5 s was missed under load) must not drop the balance from the
	// summary of a run that succeeded. Should the run fail after this,
	// the balance is read again within the bookkeeping deadline (above).
	if b, berr := env.Ledger.Balance(ctx, s.Scope); berr == nil && len(b) == 1 {
		sum.Balance = &b[0]
	}
	if run == nil {
		return sum, nil
	}
	sum.RunID = run.Record().RunID
	recordAnswer(run.Record(), sum)
	return sum, run.Succeed(ctx) // last: the answer is published
}

// answerCommand is a private answer's run record's command.
const answerCommand = "answer"

// recordAnswer puts the published answer on the run record.
func recordAnswer(rec *connector.RunRecord, sum *AnswerSummary) {
	res := sum.Answer
	rec.NodeCount, rec.RelationshipCount = sum.NodeCount, sum.RelationshipCount
	rec.ReleaseID, rec.Epsilon, rec.Rho = res.ReleaseID, res.Calibration.Epsilon, res.Calibration.Rho
	if res.Delta > 0 {
		rec.Delta = res.Delta
	}
	rec.ComputeMillis = res.Millis
	if rec.Parameters == nil {
		rec.Parameters = map[string]any{}
	}
	for k, v := range map[string]any{"community": res.Community, "communityId": res.CommunityID,
		"mechanism": res.Calibration.Mechanism, "cap": res.Calibration.Cap, "scale": res.Calibration.Scale,
		"exactSource": res.ExactSource, "mismatch": res.Mismatch} {
		rec.Parameters[k] = v
	}
}
