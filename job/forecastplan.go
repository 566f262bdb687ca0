package job

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// Parameters of the budget a forecast's budget buys are counted in
// (ForecastBudget): its ε_total, δ_total and answers' share ε_A.
const (
	ParamEpsilonTotal  errkind.Param = "epsilon-total"
	ParamDeltaTotal    errkind.Param = "delta-total"
	ParamAnswerEpsilon errkind.Param = "answer-epsilon"
)

// ForecastSpec is a forecast, before anything is released, of what each
// way of releasing would answer on one graph and partition (graphcloak
// plan): per mode and ε, with the smoothed per-node releases and the
// private answer's end-to-end audit.
type ForecastSpec struct {
	// Simulation fixes the graph, partition, τ, δ, α, estimator, trials,
	// seed and workers of every forecast; its Sensitivity is computed here.
	Simulation forecast.Simulation
	// GraphName and CommunitiesKind say what the graph and the partition
	// are, for the report ("karate", "leiden").
	GraphName, CommunitiesKind string
	Epsilons                   []float64
	// Modes among forecast.ModePerNode and forecast.ModeAnswer.
	Modes []string
	// Target, when > 0, is the community accuracy each mode is to reach.
	Target float64
	// Smooth are the τ′ > 0 of the smoothed per-node releases also
	// forecast: the release at τ + τ′, with Δ2 there (0 is skipped).
	Smooth []float64
	// TimeBudget bounds each Δ2 computation (0: to completion); a bound
	// that is not exact makes σ, and the forecast, pessimistic.
	TimeBudget time.Duration
	// AnswerCache, when non-nil, reuses (or stores) the answer model of
	// the audit; FitTolerance is the certified recovery's.
	AnswerCache  *answer.Cache
	FitTolerance float64
	// SensorNoise, when > 0, states the sensors' noise bound instead of
	// FitTolerance (recovery.CertifierOptions.SensorNoise): the forecast
	// is then the accuracy for readings within that bound.
	SensorNoise float64
	// Sensor, when not zero, is the scope's sensor model (budget --init,
	// or plan's flags stating one; its noise is SensorNoise): the
	// answer is calibrated as a scope with it answers
	// (answer.CalibrationAlpha with its drift allowance) and its rate
	// simulated under its noise and faults (sensorTrials), not
	// read off the audit's noiseless readings.
	Sensor privacy.SensorModel
	// Cache, when set, keeps Δ2, the answer's certificate (unless
	// AnswerCache names one) and the forecasts for a run on the same graph
	// and parameters to reuse.
	Cache *WorkCache
	// Progress, when non-nil, makes the progress callback of each stage
	// ("sensitivity", "answer audit").
	Progress func(stage string) func(done, total int)
	// PassStarted, when set, is told the answer audit's modelled cost
	// before its pass runs (Env.PassStarted).
	PassStarted func(g *laplacian.Graph, c recovery.PassCost)
	// Say, when set, prints a line about the work (Env.Say).
	Say    func(line string)
	Logger *slog.Logger
	// Local: the plan is of a local release (sensors add their own
	// noise; Simulation.Missing of them silent): the report's Local says so.
	Local bool
	// SensorFloor, with Local, is the sensors' σ floor: per-node rows
	// below it are left out (applyFloor).
	SensorFloor *SensorFloor
}

// ForecastReport is a ForecastSpec's result: plan's report.
type ForecastReport struct {
	Graph          string                       `json:"graph"`
	NodeCount      int                          `json:"nodeCount"`
	Relationships  int                          `json:"relationshipCount"`
	Communities    string                       `json:"communities"`
	CommunityCount int                          `json:"communityCount"`
	Tau            float64                      `json:"tau"`
	Delta2         *float64                     `json:"delta2,omitempty"`
	Delta2Exact    bool                         `json:"delta2Exact"`
	Result         *forecast.EpsilonSweepResult `json:"plan"`
	Modes          []string                     `json:"modes"`
	Target         float64                      `json:"targetAccuracy,omitempty"`
	// Budget is the budget BUDGET BUYS counts in, with its ρ_max for
	// Gaussian releases (set by the caller: ForecastBudgetBuys).
	Budget *ForecastBudget `json:"budget,omitempty"`
	// AnswerAudits is the private answer's end-to-end check on this graph
	// per ε (answer.Model.Audit); AnswerRefused says why no
	// answer can be certified at this τ.
	AnswerAudits  []AnswerAuditAt `json:"answerAudits,omitempty"`
	AnswerRefused string          `json:"answerRefused,omitempty"`
	// Local, when set, says the plan is of a local release (sensors add
	// their own noise): per-node only, and why.
	Local string `json:"local,omitempty"`
	// SensorFloor is the sensors' σ floor a local plan kept to.
	SensorFloor *SensorFloor `json:"sensorFloor,omitempty"`
}

// ForecastBudget is a budget and the ρ_max the ledger gives Gaussian
// releases under it.
type ForecastBudget struct {
	privacy.Budget
	RhoBudget float64 `json:"rhoBudget"`
	// Ledger and Scope: the budget was read from this ledger's scope,
	// with what it has spent.
	Ledger string           `json:"ledger,omitempty"`
	Scope  *privacy.Balance `json:"scope,omitempty"`
}

// NewForecastBudget fills each forecast's BudgetBuys under b
// (forecast.FillBudgetBuys, Gaussian releases counted by σ/delta2) and
// returns b with the ρ_max the ledger gives Gaussian releases under it. A
// budget that is not valid is bad input naming its parameters.
func NewForecastBudget(b privacy.Budget, fs []forecast.Forecast, delta2 *float64) (*ForecastBudget, error) {
	if err := b.Validate(); err != nil {
		return nil, errkind.Inputf("%v/%v/%v: %w", ParamEpsilonTotal, ParamDeltaTotal, ParamAnswerEpsilon, err)
	}
	rho, err := b.Rho()
	if err != nil {
		return nil, errkind.Inputf("%v/%v/%v: %w", ParamEpsilonTotal, ParamDeltaTotal, ParamAnswerEpsilon, err)
	}
	if err := forecast.FillBudgetBuys(b, fs, delta2); err != nil {
		return nil, err
	}
	return &ForecastBudget{Budget: b, RhoBudget: rho}, nil
}

// AnswerAuditAt is the private answer's audit at one ε.
type AnswerAuditAt struct {
	Epsilon float64 `json:"epsilon"`
	*answer.Audit
}

// Forecast runs a ForecastSpec: the private answer's model (its
// certified pass) first, then Δ2 at τ (per-node mode: from the pass's
// brackets where it ran, recovery.EdgeTerms), the answer's audits per ε
// (their rows exact where they pass), the sweep over ε (simulating the
// rest) and the smoothed per-node releases. The report's Budget is left to the
// caller (ForecastBudgetBuys).
func Forecast(ctx context.Context, spec ForecastSpec) (*ForecastReport, error) {
	e := spec.simulation()
	if spec.Logger == nil {
		spec.Logger = slog.New(slog.DiscardHandler)
	}
	rep := &ForecastReport{Graph: spec.GraphName, NodeCount: e.Graph.N(), Relationships: e.Graph.NumEdges(),
		Communities: spec.CommunitiesKind, Tau: e.Tau, Modes: spec.Modes, Target: spec.Target}
	memo := spec.Cache.Forecasts()
	perNode := slices.Contains(spec.Modes, forecast.ModePerNode)
	var m *answer.Model
	terms := &recovery.EdgeTerms{}
	if slices.Contains(spec.Modes, forecast.ModeAnswer) {
		spec.AnswerCache = spec.answerCache()
		var err error
		if m, err = spec.answerModel(ctx, rep, terms); err != nil {
			return nil, err
		}
	}
	if perNode {
		s, err := spec.sensitivity(ctx, e.Tau, terms)
		if err != nil {
			return nil, err
		}
		e.Sensitivity, rep.Delta2, rep.Delta2Exact = &s, &s.Delta2, s.Exact
	}
	var exact map[float64]forecast.Forecast
	if m != nil {
		var err error
		if exact, err = spec.auditAnswers(ctx, rep, m); err != nil {
			return nil, err
		}
	}
	floorCap, err := spec.floorCap(rep.Delta2)
	if err != nil {
		return nil, err
	}
	res, err := forecast.SweepEpsilons(ctx, spec.Cache.keepingTrials(forecast.EpsilonSweep{Graph: e, Epsilons: spec.Epsilons, Modes: spec.Modes, Target: spec.Target,
		PerNodeMaxEpsilon: floorCap, Exact: map[string]map[float64]forecast.Forecast{forecast.ModeAnswer: exact}, Memo: memo, Progress: spec.Progress,
		BarCost: cost.PlanWork{Simulation: e}.MassBarCost}))
	if err != nil {
		return nil, err
	}
	if perNode {
		for i := range res.Forecasts {
			if err := setExactNodeCurve(&res.Forecasts[i], *rep.Delta2, e.Graph.N()); err != nil {
				return nil, err
			}
		}
		if err := spec.smoothed(ctx, e, res, memo); err != nil {
			return nil, err
		}
	}
	rep.Result = res
	if len(res.Forecasts) > 0 {
		rep.CommunityCount = res.Forecasts[0].Communities
	}
	if spec.Local {
		rep.Local = localReport(rep, e.Missing, e.Graph.N())
		if err := spec.applyFloor(rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// progress is spec.Progress(stage), or nil without one.
func (spec *ForecastSpec) progress(stage string) func(done, total int) {
	if spec.Progress == nil {
		return nil
	}
	return spec.Progress(stage)
}

// sensitivity is Δ2 at tau and the simulation's α, within the time budget:
// the Cache's certificate while it verifies, else computed (and kept).
func (spec *ForecastSpec) sensitivity(ctx context.Context, tau float64, terms *recovery.EdgeTerms) (sensitivity.Result, error) {
	g, alpha := spec.Simulation.Graph, spec.Simulation.Alpha
	log := spec.Logger // set by Forecast
	c := spec.Cache.Sensitivity(g, tau, alpha)
	if c != nil {
		if s := cachedSensitivity(log, c, g, tau, alpha); s != nil {
			return *s, nil
		}
	}
	opt := sensitivity.Options{TimeBudget: spec.TimeBudget, Progress: spec.progress("sensitivity")}
	if terms.Complete() && tau == spec.Simulation.Tau {
		opt.Known = terms.Bracket
	}
	s, err := sensitivity.GraphContext(ctx, g, tau, alpha, opt)
	if err == nil && c != nil {
		storeSensitivity(log, c, g, s, tau)
	}
	return s, err
}

// smoothed adds to res the smoothed per-node releases: the release at
// τ + τ′, with Δ2 there. Their forecasts keep τ and carry τ′ (Smooth);
// so do their needed ε, whose Mode the caller may label with the
// parameter's name.
func (spec *ForecastSpec) smoothed(ctx context.Context, e forecast.Simulation, res *forecast.EpsilonSweepResult, memo forecast.Memo) error {
	tau := e.Tau
	for _, sm := range spec.Smooth {
		if sm == 0 {
			continue
		}
		s, err := spec.sensitivity(ctx, tau+sm, nil)
		if err != nil {
			return err
		}
		es := e
		es.Tau, es.Sensitivity = tau+sm, &s
		floorCap, err := spec.floorCap(&s.Delta2)
		if err != nil {
			return err
		}
		r, err := forecast.SweepEpsilons(ctx, spec.Cache.keepingTrials(forecast.EpsilonSweep{Graph: es, Epsilons: spec.Epsilons, Modes: []string{forecast.ModePerNode}, Target: spec.Target,
			PerNodeMaxEpsilon: floorCap, Memo: memo, Progress: spec.Progress, BarCost: cost.PlanWork{Simulation: es}.MassBarCost}))
		if err != nil {
			return err
		}
		for i := range r.Forecasts {
			r.Forecasts[i].Smooth, r.Forecasts[i].Tau = sm, tau
			if err := setExactNodeCurve(&r.Forecasts[i], s.Delta2, e.Graph.N()); err != nil {
				return err
			}
		}
		for i := range r.Needed {
			r.Needed[i].Smooth = sm
		}
		res.Forecasts = append(res.Forecasts, r.Forecasts...)
		res.Needed = append(res.Needed, r.Needed...)
	}
	return nil
}

// answerModel is the private answer's model on the graph: the certified
// recovery's pass over every source, whose correlations also bracket
// every edge's Δ2 term (terms), and the classes. A τ the graph cannot
// resolve is no error: the report says why answers would be refused, and
// the model is nil. Without a partition there is nothing to audit.
func (spec *ForecastSpec) answerModel(ctx context.Context, rep *ForecastReport, terms *recovery.EdgeTerms) (*answer.Model, error) {
	e := spec.simulation()
	if e.Partition == nil {
		return nil, nil
	}
	progress, started := auditPasses(spec.Progress, spec.PassStarted, spec.Say, e.Graph)
	m, err := spec.AnswerCache.ModelResumable(ctx, e.Graph, e.Tau, e.Partition, nil,
		recovery.CertifierOptions{Tol: spec.FitTolerance, SensorNoise: spec.SensorNoise, Progress: progress,
			Started: started, EdgeTerms: terms}, spec.Logger, resumedPass(spec.Say))
	var mre *recovery.ModelRangeError
	if errors.As(err, &mre) {
		rep.AnswerRefused = mre.Error()
		return nil, nil
	}
	return m, err
}

// auditAnswers is the end-to-end check of the private answer on the
// graph: on its model, the mechanism calibrated and its loss over every
// edge per ε. It returns the answer's exact rows, at every ε whose audit
// passed (forecast.ExactAnswer).
func (spec *ForecastSpec) auditAnswers(ctx context.Context, rep *ForecastReport, m *answer.Model) (map[float64]forecast.Forecast, error) {
	e := spec.simulation()
	exact := map[float64]forecast.Forecast{}
	alpha, capDist := answer.CalibrationAlpha(e.Alpha, spec.Sensor.DriftHops), answer.CalibrationCap(0, spec.Sensor.DriftHops)
	bar := spec.calibrationBar(spec.AnswerCache.Kept(m, spec.Epsilons, alpha, capDist))
	audits := spec.Cache.Audits()
	for _, eps := range spec.Epsilons {
		bar.begin(eps)
		cal, err := spec.AnswerCache.Calibrate(ctx, m, eps, alpha, capDist, spec.Logger)
		if err != nil {
			return nil, err
		}
		key := audits.Key(e.Graph, m, e.Tau, spec.FitTolerance, spec.SensorNoise, e.Partition, cal)
		a, ok := audits.Load(e.Graph, key)
		if !ok {
			bar.auditing(eps)
			if a, err = m.Audit(ctx, cal); err != nil {
				return nil, err
			}
			audits.Store(e.Graph, key, a)
		}
		if a.SensorNoise > 0 && a.SensorNoiseExit == nil { // an audit kept by an older build
			a.SensorNoiseExit = m.Certifier.NoiseExitCurve(a.SensorNoise)
		}
		bar.end(eps)
		rep.AnswerAudits = append(rep.AnswerAudits, AnswerAuditAt{Epsilon: eps, Audit: a})
		if a.Passed {
			// The answers are drawn from the audited mechanism (on the
			// model's classes), whose rates over every source the audit
			// computed: the row is its numbers, not a simulation's.
			f, err := forecast.ExactAnswer(e, forecast.AnswerAudit{Mechanism: cal.Mechanism, Epsilon: eps, Alpha: e.Alpha,
				Accuracy: a.Accuracy, PerNode: a.OwnCommunity(), In90Rate: a.In90Rate, In90Size: a.In90Size})
			if err != nil {
				return nil, err
			}
			f.Reused = ok // its audit was an earlier run's
			if err := spec.underSensors(ctx, &f, m, cal, a); err != nil {
				return nil, err
			}
			exact[eps] = f
		}
	}
	return exact, nil
}

// underSensors makes f, the answer's row at cal (audited by a), the rate
// simulated under the spec's sensor model (nothing without one): the
// simulation's trials and seed, the answer at the nearest fit.
func (spec *ForecastSpec) underSensors(ctx context.Context, f *forecast.Forecast, m *answer.Model, cal privacy.AnswerCalibration, a *answer.Audit) error {
	e := spec.simulation()
	return sensorTrials{Sensor: spec.Sensor, Trials: e.Trials, Seed: e.Seed}.forecast(ctx, f, m, cal, a)
}

// HeldWork is what a ForecastSpec's caches hold of its work before it
// runs: Δ2 at τ (nil: computed), whether the private answer's certificate
// verifies, and per mode the ε whose rows are kept (and under
// forecast.CeilingMode those whose routed ceiling is). plan --estimate
// prices only the rest.
type HeldWork struct {
	Delta2      *sensitivity.Result
	AnswerModel bool
	// Calibrated is the ε whose answer calibrations are kept beside the
	// certificate.
	Calibrated []float64
	Rows       map[string][]float64
	// MassNull: the per-node forecasts' mass null quantile at τ is kept
	// (forecast.EpsilonSweep.HeldMassNull); Trials: their pool of trials
	// at τ is (forecast.EpsilonSweep.HeldTrials).
	MassNull, Trials bool
}

// answerCache is where the private answer's certificate is kept: the
// given AnswerCache, else the work cache's (nil: nowhere).
func (spec ForecastSpec) answerCache() *answer.Cache {
	if spec.AnswerCache != nil {
		return spec.AnswerCache
	}
	e := spec.simulation()
	return spec.Cache.Answer(e.Graph, e.Tau, spec.FitTolerance, spec.SensorNoise)
}

// Held reads spec's caches as Forecast would, computing nothing.
func (spec ForecastSpec) Held() HeldWork {
	var h HeldWork
	e := spec.simulation()
	log := spec.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if slices.Contains(spec.Modes, forecast.ModePerNode) {
		if c := spec.Cache.Sensitivity(e.Graph, e.Tau, e.Alpha); c != nil {
			h.Delta2 = cachedSensitivity(log, c, e.Graph, e.Tau, e.Alpha)
		}
	}
	if slices.Contains(spec.Modes, forecast.ModeAnswer) {
		if cache := spec.answerCache(); cache != nil && e.Partition != nil {
			opt := recovery.CertifierOptions{Tol: spec.FitTolerance, SensorNoise: spec.SensorNoise}
			_, _, err := cache.Load(e.Graph, e.Tau, opt)
			if h.AnswerModel = err == nil; h.AnswerModel {
				h.Calibrated = cache.CalibratedEpsilons(e.Graph, e.Tau, opt)
			}
		}
	}
	// The rows' keys name Δ2: without it kept, every row is computed.
	if slices.Contains(spec.Modes, forecast.ModePerNode) && h.Delta2 == nil {
		return h
	}
	e.Sensitivity = h.Delta2
	sweep := spec.Cache.keepingTrials(forecast.EpsilonSweep{Graph: e, Epsilons: spec.Epsilons, Modes: spec.Modes, Memo: spec.Cache.Forecasts()})
	h.Rows = map[string][]float64{}
	for _, mode := range append(slices.Clone(spec.Modes), forecast.CeilingMode) {
		h.Rows[mode] = sweep.Held(mode)
	}
	perNode := slices.Contains(spec.Modes, forecast.ModePerNode)
	h.MassNull, h.Trials = perNode && sweep.HeldMassNull(), perNode && sweep.HeldTrials()
	return h
}

// simulation is the spec's simulation with the verdict rate forecasting
// locate at its default forecast (LocateForecastTrials a round) unless
// set: every sweep and every look at the memo of one plan reads one key.
func (spec *ForecastSpec) simulation() forecast.Simulation {
	e := spec.Simulation
	if e.VerdictRoundTrials == 0 {
		e.VerdictRoundTrials = LocateForecastTrials
	}
	return e
}

// CostWork is what Forecast will run on spec as cost.Plan models it (its
// caches' holdings priced at 0 s), the per-node forecasts' trials timed
// or priced (cost.PlanWork.Timed); name names the parameters.
func (spec ForecastSpec) CostWork(timed bool, name cost.Names) cost.PlanWork {
	held := spec.Held()
	d2 := 0.0
	if held.Delta2 != nil {
		d2 = held.Delta2.Delta2
	}
	return cost.PlanWork{Delta2: d2, GraphName: spec.GraphName, Simulation: spec.Simulation, Epsilons: spec.Epsilons, Smooth: spec.Smooth, Modes: spec.Modes,
		TimeBudget: spec.TimeBudget, FitTolerance: spec.FitTolerance, SensorNoise: spec.SensorNoise,
		Held: cost.Held{Delta2: held.Delta2 != nil, AnswerModel: held.AnswerModel, Calibrated: held.Calibrated, Rows: held.Rows, MassNull: held.MassNull, Trials: held.Trials}, Timed: timed, Name: name}
}
