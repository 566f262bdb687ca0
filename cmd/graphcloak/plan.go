package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/stores"
)

// planOptions are the flags of "plan".
type planOptions struct {
	graphOptions
	modes         []string
	target        float64
	smoothSpec    string
	smooth        []float64
	answerEpsilon float64
	fitTolerance  float64
	// model is the sensor model the flags state (--sensor-noise alone
	// is the answer's noise, as locate's; with --drift-hops or a part
	// beyond it, a scope's model: planSensorModel).
	model     modelFlags
	driftHops int
	// modelGiven: --drift-hops or a part of the model beyond its noise
	// was given; driftGiven: --drift-hops was.
	modelGiven, driftGiven bool
	answerCache            string
	cacheDir               string
	// epsilonGiven: --epsilon was given (else the configured ε).
	epsilonGiven bool
	// local forecasts a local release (sensors add their own noise,
	// epoch open): the per-node mode only.
	local bool
	// sensorPolicy is the sensors' policy file a local plan keeps to
	// ("": keygen's default policy).
	sensorPolicy string
	estimate     bool
	// missing is the fraction of sensors a local release's plan expects
	// not to report (--missing).
	missing float64
}

const planHelp = `plan forecasts, before anything is released, what each way of releasing
would answer on this graph: the rate of the right source community in first
place and of the source's community inside the 90% set (with 95% intervals),
the 90% set's size, the chance level beside each, and the ceiling that no
(ε, δ)-DP mechanism can beat on this graph. It simulates the real pipeline
(seeded: sources at random nodes, the release's noise, the recovery) on the
real graph and partition.

Two modes:
  per-node        per-node values with Gaussian noise calibrated to the certified
                  Δ2 (graphcloak release; needs Δ2 at τ, computed first)
  private-answer  the operator recovers the source from its own readings and
                  publishes only one community, drawn by randomized response, the
                  community-geometric or the community-envelope mechanism, whichever
                  is most accurate on the graph (graphcloak locate --private-answer)

--local forecasts a local release (epoch open; sensors add their own noise):
the per-node mode — the private answer needs the raw readings in one place
and is not offered there; its rows are the central private answer on the
same graph, for comparison (--modes per-node leaves them out).
--missing Q (with --local) forecasts it with a fraction Q of the sensors not
reporting: missing uniformly at random, independent of where the source is (a
sensor switched off, out of battery, out of range), and the rest located from
their readings alone, as locate does. Sensors that fail because of the source
(a fire that burns the detector) are not that case: the forecast would be
optimistic.

A scope's sensor model (budget --init --sensor-noise ν [--adc-quantum
--gain-tolerance --faulty-sensors --noise-peak --drift-hops d]) changes the
private answer: answered at the nearest fit, calibrated as if α were
⌈α⌉·(1+2d). With --ledger/--scope naming a scope with a model, or with
--drift-hops (or a part of the model beyond --sensor-noise) stating one, plan
forecasts that answer: calibrated the same way, its rate simulated on
--trials sources whose readings carry the model's noise and faults (an ADC
step, gains within the tolerance, the faulty sensors stuck at 0 wherever the
source is, noise clipped at its peak), unit sources unless the model states
--min-source-mass. --sensor-noise alone is the answer's noise on a scope
without a model, as locate's.

--target-accuracy A prints, per mode, the smallest ε on the grid 1/8 … 32
(steps of √2) whose forecast reaches A.

Its defaults are a release's (τ, ε, δ, α, the estimator, Leiden communities, as
configured), so by default plan forecasts the release the same configuration
would make. With --ledger/--scope (or privacy.ledger, privacy.scope in the
configuration) plan reads the scope's budget and what it has spent; with
--epsilon-total and --delta-total instead, BUDGET BUYS says how many such releases
a fresh scope of that budget admits, under the ledger's rule for the answers'
share --answer-epsilon (budget --init --answer-epsilon: answers Σε ≤ ε_A,
Gaussian releases Σρ ≤ CKSRho(ε_total − ε_A, δ_total); 0: everything in zCDP),
and under exact composition.

` + simulationNote

func newPlanCmd(g *globalOptions) *cobra.Command {
	o := &planOptions{}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Forecast what a release would answer (per mode and ε) before releasing",
		Long:  planHelp,
		Example: `  graphcloak plan --graph rgg:n=20000,radius=0.02,seed=1 --tau 1 --epsilon 1,4 --delta 1e-6
  graphcloak plan --graph karate --epsilon 0.5,1,2,4,8 --ledger ./ledger.json --scope building-7
  graphcloak plan --graph file:edges.csv --communities file:communities.csv --tau 1 --target-accuracy 0.8 -o json
  graphcloak plan --graph file:edges.csv --tau 1 --estimate   # how long, before you run it
  graphcloak plan --graph file:edges.csv --tau 1 --local --missing 0.1   # a local release, 10% of sensors silent`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkPlanFlags(cmd.Flags(), o); err != nil {
				return err
			}
			return runPlan(cmd.Context(), g, o, g.stdout)
		},
	}
	addPlanFlags(cmd.Flags(), o)
	return cmd
}

// checkPlanFlags checks what plan's flags say together, before anything
// is read: the sensors' noise, --missing only with --local, and no
// private answer in a local forecast.
func checkPlanFlags(f *pflag.FlagSet, o *planOptions) error {
	o.epsilonGiven = f.Changed("epsilon")
	if err := o.model.check(f); err != nil {
		return err
	}
	for _, name := range append([]string{"drift-hops"}, sensorModelFlags...) {
		o.modelGiven = o.modelGiven || f.Changed(name)
	}
	o.driftGiven = f.Changed("drift-hops")
	if o.missing != 0 && !o.local {
		return errkind.Usagef("--missing is the fraction of sensors that do not report in a local release: give --local too")
	}
	if !(o.missing >= 0 && o.missing < 1) {
		return errkind.Inputf("--missing must be a fraction in [0, 1), got %v", o.missing)
	}
	if o.sensorPolicy != "" && !o.local {
		return errkind.Usagef("--sensor-policy is the policy of a local release's sensors: give --local too")
	}
	if o.local && f.Changed("modes") && slices.Contains(o.modes, forecast.ModeAnswer) {
		return errkind.Usagef("--local: %s", job.LocalNoAnswer)
	}
	return nil
}

// addPlanFlags defines plan's flags on f, bound to o.
func addPlanFlags(f *pflag.FlagSet, o *planOptions) {
	graphFlag(f, &o.graph, "", graphAny, "the graph the release will read")
	// τ, δ, α, the estimator and the concurrency are the configuration's
	// (privacy.tau, …): one default on every command, the release's.
	config.AddFlags(f, "tau", "delta", "alpha", "estimator", "concurrency")
	f.Float64SliceVar(&o.epsilons, "epsilon", []float64{1}, "privacy ε to forecast, one or several (comma-separated; default: the configured ε of a release)")
	f.IntVar(&o.trials, "trials", 200, "simulated sources per forecast")
	addSeedFlag(f)
	communitiesFlag(f, "partition the forecasts score: "+communityKindsHelp("plan"))
	f.Float64Var(&o.resolution, "resolution", 1, "modularity resolution γ of leiden/louvain")
	f.StringSliceVar(&o.modes, "modes", []string{forecast.ModePerNode, forecast.ModeAnswer}, "modes to forecast: per-node, private-answer")
	f.BoolVar(&o.local, "local", false, "forecast a local release (sensors add their own noise; epoch open): the per-node mode, and the central private answer on the same graph for comparison (not offered locally)")
	f.StringVar(&o.sensorPolicy, "sensor-policy", "", "with --local: a sensor's policy file (keygen --out-dir writes NODE.policy.json; default: keygen's default policy, σ floor 1.984): ε whose σ is below its floor are not forecast")
	f.Float64Var(&o.missing, "missing", 0, "with --local: the fraction of sensors that will not report (missing at random, independent of the source), in [0, 1)")
	f.Float64Var(&o.target, "target-accuracy", 0, "print the smallest ε at which each mode reaches this right-community rate (0 < A < 1)")
	f.StringVar(&o.smoothSpec, "smooth", "0", "also forecast per-node releases smoothed by these τ′ (comma-separated; release --smooth τ′: Δ2 at τ+τ′); auto: the τ′ release --smooth auto chooses among, τ/2, τ and 2τ")
	durationVar(f, &o.timeBudget, "time-budget", 0, "time budget of Δ2 for the per-node mode (0: to completion; a bound that is not exact makes σ, and the forecast, pessimistic)")
	config.AddFlags(f, "header", "duplicate-edges", "epsilon-total", "delta-total", "ledger", "ledger-key", "scope")
	f.Float64Var(&o.fitTolerance, "fit-tolerance", recovery.DefaultFitTolerance,
		"the private answer's fit tolerance (as locate --private-answer): the audit's classes depend on it")
	addSensorNoiseFlag(f, &o.model.noise)
	addModelPartFlags(f, &o.model.parts)
	o.driftHops = privacy.DefaultDriftHops
	f.Var((*driftFlag)(&o.driftHops), "drift-hops", "with --sensor-noise: forecast a scope's sensor model (as budget --init keeps it) with this drift allowance — any (default): randomized response at ε; d in 0..3: answers calibrated as if α were ⌈α⌉·(1+2d); the rate simulated under the model's noise and faults; a scope with a model (--ledger/--scope) is forecast under its own")
	f.BoolVar(&o.estimate, "estimate", false, "only estimate how long the plan's long steps take (Δ2 by its cost model, the answer audit at this machine's measured rate, the per-node trials priced at it; under 1 s); compute nothing")
	f.StringVar(&o.answerCache, "answer-cache", "", "reuse (or store) the answer model of the audit in this file, as locate --private-answer --answer-cache does")
	addCacheDirFlag(f, &o.cacheDir)
	f.Float64Var(&o.answerEpsilon, "answer-epsilon", 0, "the answers' share ε_A of --epsilon-total that BUDGET BUYS assumes (as budget --init --answer-epsilon fixes it; 0: answers in zCDP)")
	config.AddFlags(f, "uri", "user", "password", "database", "projection", "node-labels", "relationship-types",
		"relationship-weight-property", "node-key-property")
	// --mode is the old spelling of --modes (locate's and communities'
	// --mode is write or stream), --seed of --random-seed.
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		switch name {
		case "seed":
			name = "random-seed"
		case "mode":
			name = "modes"
		}
		return pflag.NormalizedName(name)
	})
}

// checkPlan validates plan's own flags (the graph flags are experiment
// graph's).
func checkPlan(o *planOptions) (string, error) {
	o.sources = 1
	if o.graph == "" {
		return "", errkind.Usagef("plan needs --graph: the graph the release will read (%s)", graphKindsBrief)
	}
	for _, m := range o.modes {
		if m != forecast.ModePerNode && m != forecast.ModeAnswer {
			return "", errkind.Inputf("--mode must be %s or %s, got %q", forecast.ModePerNode, forecast.ModeAnswer, m)
		}
	}
	if o.target != 0 && !(o.target > 0 && o.target < 1) {
		return "", errkind.Inputf("--target-accuracy must be in (0, 1), got %v", o.target)
	}
	smooth, err := job.SmoothList(o.smoothSpec).Taus(o.taus[0]) // --smooth
	if err != nil {
		return "", err
	}
	o.smooth = smooth
	return checkExperimentGraph(&o.graphOptions)
}

// planLedgerBalance reads the balance of --scope from --ledger when the
// configuration names either (a flag, GRAPHCLOAK_* or the file) and
// --epsilon-total/--delta-total are not given as flags; nil otherwise. The
// ledger is opened read-only, as a dry run opens it, through st (the
// stores the graph was read through: a ledger in Neo4j is read on the
// process's one driver), or through stores connected now when st was
// opened without the database.
func planLedgerBalance(ctx context.Context, g *globalOptions, o *planOptions, st *stores.Stores) (*privacy.Balance, error) {
	cfg, src := &g.cfg.Config, g.cfg.Sources
	named := src["privacy.ledger"] != config.FromDefault || src["privacy.scope"] != config.FromDefault
	totals := src["privacy.epsilonTotal"] == config.FromFlag || src["privacy.deltaTotal"] == config.FromFlag
	switch {
	case !named:
		return nil, nil
	case totals && (src["privacy.ledger"] == config.FromFlag || src["privacy.scope"] == config.FromFlag):
		return nil, errkind.Usagef("give either --ledger/--scope (the scope's budget is read) or --epsilon-total/--delta-total (a fresh scope of that budget), not both")
	case totals:
		return nil, nil
	case o.answerEpsilon != 0:
		return nil, errkind.Usagef("--answer-epsilon is the scope's own with --ledger/--scope (fixed by budget --init): drop it")
	}
	if err := privacy.CheckName("scope", cfg.Privacy.Scope); err != nil { // before connecting
		return nil, errkind.Inputf("%s: %w", job.ParamScope, err)
	}
	if st.Client == nil && cfg.Privacy.Ledger == "neo4j" {
		var err error
		if st, err = stores.Open(ctx, g.cfg, stores.Options{Neo4j: true}); err != nil {
			return nil, withInitHint(cfg, err)
		}
		defer st.Close(context.WithoutCancel(ctx))
	}
	bal, err := st.ScopeBalance(ctx)
	return bal, withInitHint(cfg, err)
}

// planFromConfig takes plan's parameters that are configuration keys
// (τ, δ, α, ε unless --epsilon lists several, estimator, seed, workers).
func planFromConfig(cfg *config.Config, o *planOptions) {
	o.seed = uint64(cfg.Write.RandomSeed)
	o.taus, o.delta, o.alpha = []float64{cfg.Privacy.Tau}, cfg.Privacy.Delta, cfg.Privacy.Alpha
	o.estimator, o.workers = cfg.Recovery.Estimator, cfg.Write.Concurrency
	o.communities = cfg.Recovery.Communities
	if !o.epsilonGiven {
		o.epsilons = []float64{cfg.Privacy.Epsilon}
	}
}

func runPlan(ctx context.Context, g *globalOptions, o *planOptions, out io.Writer) error {
	planFromConfig(&g.cfg.Config, o)
	property, err := checkPlan(o)
	if err != nil {
		return err
	}
	// One driver for the graph and the ledger (planLedgerBalance).
	st, err := openGraph(ctx, g, o.graph, property)
	if err != nil {
		return err
	}
	defer st.Close(context.WithoutCancel(ctx))
	lg, err := readGraphFlag(ctx, st, o.graph, property, true)
	if err != nil {
		return err
	}
	if lg, err = lg.InKeyOrder(); err != nil {
		return err
	}
	bal, err := planLedgerBalance(ctx, g, o, st)
	if err != nil {
		return err
	}
	spec, err := planSpec(ctx, g, o, lg)
	if err != nil {
		return err
	}
	if err := o.withSensorModel(&spec, bal); err != nil {
		return err
	}
	if o.estimate {
		return runPlanEstimate(g, spec, out)
	}
	sayPlanEstimate(g, lg, spec)
	rep, err := job.Forecast(ctx, spec)
	if err != nil {
		return err
	}
	rep.LabelSmoothed(flagName) // labelled with the flag that asks for it
	if err := planBudgetBuys(g, o, bal, rep); err != nil {
		return err
	}
	if g.output == "json" {
		return printJSON(out, rep)
	}
	return textreport.Plan(out, rep, flagName)
}

// planSpec is the plan's work on the loaded graph: its communities (the
// partition its forecasts score), the simulation, the caches.
func planSpec(ctx context.Context, g *globalOptions, o *planOptions, lg *stores.Graph) (job.ForecastSpec, error) {
	work, err := planWorkCache(g, o)
	if err != nil {
		return job.ForecastSpec{}, err
	}
	end := g.phase(fmt.Sprintf("communities (%s) on %d nodes", o.communities, lg.Graph.N()))
	kind, part, names, err := lg.ScoredPartitionCached(ctx, o.communities, o.resolution, o.seed, work)
	end()
	if err != nil {
		return job.ForecastSpec{}, err
	}
	cache, err := planAnswerCache(g, o)
	if err != nil {
		return job.ForecastSpec{}, err
	}
	sim := o.simulation(lg.Graph, part, names, privacy.MechanismDefault)
	sim.Tau, sim.Progress = o.taus[0], g.progress("private-answer trials")
	sim.Missing = o.missing
	floor, err := sensorFloor(o)
	if err != nil {
		return job.ForecastSpec{}, err
	}
	return job.ForecastSpec{Local: o.local, SensorFloor: floor, Simulation: sim, GraphName: o.graph, CommunitiesKind: kind,
		Epsilons: o.epsilons, Modes: o.modes, Target: o.target, Smooth: o.smooth, TimeBudget: o.timeBudget,
		AnswerCache: cache, Cache: work, FitTolerance: o.fitTolerance, SensorNoise: o.model.noise.At(lg.Graph.N()), Progress: g.progress, PassStarted: g.passStarted, Say: g.say, Logger: g.logger}, nil
}

// planAnswerCache is the cache of the answer audit's model that
// --answer-cache names (nil: none), sealed under the ledger key as locate
// --private-answer and serve seal theirs.
func planAnswerCache(g *globalOptions, o *planOptions) (*answer.Cache, error) {
	if o.answerCache == "" || !slices.Contains(o.modes, forecast.ModeAnswer) {
		return nil, nil
	}
	c, err := jobfiles.AnswerCache(&g.cfg.Config, o.answerCache)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// planWorkCache is the store --cache-dir names (workStore: its default in
// the user cache directory; nil for none).
func planWorkCache(g *globalOptions, o *planOptions) (*job.WorkCache, error) {
	return workStore(g, o.cacheDir)
}

// planBudgetBuys fills the report's budget (job.ForecastReport.SetBudget):
// what the configured totals (--epsilon-total, --delta-total; the
// answers' share --answer-epsilon), or the --ledger/--scope scope's own
// budget, bal (planLedgerBalance), buy of each forecast.
func planBudgetBuys(g *globalOptions, o *planOptions, bal *privacy.Balance, rep *job.ForecastReport) error {
	cfg := &g.cfg.Config
	ledger := ""
	if bal != nil {
		var err error
		if ledger, err = cfg.LedgerName(); err != nil {
			return err
		}
	}
	return rep.SetBudget(privacy.Budget{Epsilon: cfg.Privacy.EpsilonTotal, Delta: cfg.Privacy.DeltaTotal, AnswerEpsilon: o.answerEpsilon}, bal, ledger)
}
