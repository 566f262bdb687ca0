package main

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/sourceview"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/recovery"
)

func newExperimentCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "experiment",
		Short: "Reproduce the paper's experiments: sources on a line, sources on a graph",
		Long:  "Run the paper's experiments as seeded Monte Carlo simulations.\n\n" + simulationNote,
	}
	cmd.AddCommand(newExperimentLineCmd(g), newExperimentGraphCmd(g), newExperimentSensitivityCmd(g))
	return cmd
}

// lineOptions are the flags of "experiment line" (experiment.LineRun:
// Private is --epsilon given).
type lineOptions struct{ experiment.LineRun }

func newExperimentLineCmd(g *globalOptions) *cobra.Command {
	o := &lineOptions{}
	cmd := &cobra.Command{
		Use:   "line",
		Short: "Heat sources on the unit interval (the paper's Figure 1)",
		Long: `Unit sources on the grid j/n of [0, 1], m sensors at i/m measuring the heat
kernel at time T, Gaussian noise, recovery, and the earth mover's distance
between the true and recovered (normalised) sources, over --trials noise
draws. --sigma is the paper's fixed, non-private noise; --epsilon/--delta
instead calibrate σ privately on Δ2 of the line (--mechanism: discrete, the
σ a real release uses, by default; analytic for the continuous Gaussian).

` + simulationNote,
		Example: `  graphcloak experiment line --n 100 --m 50 --tau 0.05 --sigma 0.1 --source-positions 0.24,0.76 --trials 20 --estimator bpdn -o json
  graphcloak experiment line --epsilon 1 --delta 1e-5 --trials 20 --plot line.png`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Private = cmd.Flags().Changed("epsilon")
			if o.Private && cmd.Flags().Changed("sigma") {
				return errkind.Usagef("give either --sigma (fixed noise) or --epsilon/--delta (private noise), not both")
			}
			if cmd.Flags().Changed("delta") && !o.Private {
				return errkind.Usagef("--delta needs --epsilon")
			}
			return runExperimentLine(cmd.Context(), g, o, g.stdout)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.N, "n", 100, "source grid points j/n, j = 1..n")
	f.IntVar(&o.M, "m", 50, "sensors at i/m, i = 1..m")
	f.Float64Var(&o.T, "tau", 0.05, "diffusion time τ = μt (the paper's T)")
	f.Float64Var(&o.T, "T", 0.05, "old spelling of --tau")
	_ = f.MarkHidden("T")
	f.Float64Var(&o.Sigma, "sigma", 0.1, "fixed (non-private) noise standard deviation")
	f.Float64Var(&o.Epsilon, "epsilon", 0, "privacy ε: calibrate σ privately instead of --sigma")
	f.Float64Var(&o.Delta, "delta", 1e-5, "privacy δ (with --epsilon)")
	f.StringVar(&o.MechanismName, "mechanism", "discrete", "σ calibration with --epsilon: "+mechanismFlagHelp())
	f.Float64Var(&o.Alpha, "alpha", 0, "neighbour EMD radius α (default 1/n: unit mass moved one grid step)")
	// --sources is a count everywhere else (experiment graph, locate).
	f.Float64SliceVar(&o.Sources, "source-positions", []float64{0.24, 0.76}, "unit source positions in (0, 1], comma-separated")
	f.Float64SliceVar(&o.Sources, "sources", []float64{0.24, 0.76}, "old spelling of --source-positions")
	_ = f.MarkHidden("sources")
	f.IntVar(&o.Trials, "trials", 20, "noise draws")
	f.StringVar(&o.Estimator, "estimator", recovery.Default, "estimator: "+strings.Join(recovery.Names(), ", "))
	addSeedFlag(f)
	config.AddFlags(f, "concurrency") // write.concurrency: one default everywhere
	f.StringVar(&o.Plot, "plot", "", "write trial 0 (true vs recovered sources) to this image file (.png, .svg, .pdf)")
	return cmd
}

func runExperimentLine(ctx context.Context, g *globalOptions, o *lineOptions, out io.Writer) error {
	o.Seed, o.Workers = uint64(g.cfg.Write.RandomSeed), g.cfg.Write.Concurrency
	res, err := o.Run(ctx, g.progress("line trials"))
	if err != nil {
		return err
	}
	if g.output == "json" {
		return printJSON(out, res)
	}
	textreport.LineExperiment(out, res)
	return nil
}

func newExperimentGraphCmd(g *globalOptions) *cobra.Command {
	o := &graphOptions{}
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Private source localisation on a graph (the paper's SBM experiment)",
		Long: `Plant --sources unit sources at uniformly random nodes, release
exp(−τL)f0 with Gaussian noise calibrated to (ε, δ) on Δ2, recover
with --estimator, and score: community accuracy (the report's top community
is the source's), exact-node rate (the heaviest node is the source: low means
the privacy is working), EMD, and the no-source rate. Scoring uses the graph's
planted partition when it has one (SBM blocks, karate factions), else Leiden;
--communities planted|leiden|louvain|file:PATH overrides.

Δ2 is computed exactly unless --time-budget stops it earlier: then σ is
calibrated on the best proven upper bound reached, as a release with
--time-budget would be, and the summary says "Δ2=…, an upper bound". On
hub-heavy graphs the exact Δ2 can take hours ('graphcloak sensitivity
--dry-run' tells how long).

` + simulationNote,
		Example: `  graphcloak experiment graph --graph sbm:sizes=250x250,pin=0.05,pout=0.001 --tau 2 --epsilon 4 --delta 0.1 --sources 1 --trials 1000 -o json
  graphcloak experiment graph --graph karate --tau 1 --epsilon 8 --delta 1e-5 --trials 200 --estimator bpdn --plot karate.png`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("sigma") && (cmd.Flags().Changed("epsilon") || cmd.Flags().Changed("delta")) {
				return errkind.Usagef("give either --sigma (fixed, non-private noise) or --epsilon/--delta, not both")
			}
			return runExperimentGraph(cmd.Context(), g, o, g.stdout)
		},
	}
	f := cmd.Flags()
	graphFlag(f, &o.graph, paperGraph, graphAny, "graph spec")
	f.Float64SliceVar(&o.taus, "tau", []float64{2}, "diffusion time τ; several (comma-separated) run one experiment each")
	f.Float64SliceVar(&o.epsilons, "epsilon", []float64{4}, "privacy ε; several (comma-separated) run one experiment each and --plot draws the rates against ε")
	f.Float64Var(&o.delta, "delta", 0.1, "privacy δ")
	f.StringVar(&o.mechanism, "mechanism", "discrete", "σ calibration: "+mechanismFlagHelp())
	f.Float64Var(&o.alpha, "alpha", 1, "neighbour EMD radius α (unit mass moved α hops)")
	f.Float64Var(&o.sigma, "sigma", 0, "fixed, non-private noise σ instead of --epsilon/--delta (sanity runs)")
	f.IntVar(&o.sources, "sources", 1, "unit sources per trial, at distinct random nodes")
	f.IntVar(&o.trials, "trials", 200, "trials (source placement and noise draw)")
	f.StringVar(&o.estimator, "estimator", recovery.Default, "estimator: "+strings.Join(recovery.Names(), ", "))
	addSeedFlag(f)
	f.StringVar(&o.communities, "communities", "", "scoring partition: "+communityKindsHelp("experiment")+"; default planted when the graph has one")
	f.Float64Var(&o.resolution, "resolution", 1, "modularity resolution γ of community detection (leiden, louvain): larger γ, smaller communities")
	config.AddFlags(f, "concurrency") // write.concurrency: one default everywhere
	f.StringVar(&o.plot, "plot", "", "write trial 0's community probabilities as bars to this image file (.png, .svg, .pdf)")
	f.BoolVar(&o.privateAnswer, "private-answer", false, "score the private-answer mode (locate --private-answer) instead of the per-node release")
	f.IntVar(&o.answerCap, "answer-cap", 0, "distance cap of the answer mechanism (1: randomized response; 0: the most accurate)")
	durationVar(f, &o.timeBudget, "time-budget", 0, "compute Δ2 for at most this long and calibrate σ on the best proven upper bound reached (0: to completion); a bound that is not exact makes σ, and the rates, pessimistic")
	config.AddFlags(f, "header", "duplicate-edges")
	config.AddFlags(f, "uri", "user", "password", "database", "projection", "node-labels", "relationship-types",
		"relationship-weight-property", "node-key-property")
	return cmd
}

func runExperimentGraph(ctx context.Context, g *globalOptions, o *graphOptions, out io.Writer) error {
	began := time.Now()
	o.seed, o.workers = uint64(g.cfg.Write.RandomSeed), g.cfg.Write.Concurrency
	property, err := checkExperimentGraph(o)
	if err != nil {
		return err
	}
	lg, err := loadExperimentGraph(ctx, g, o.graph, property)
	if err != nil {
		return err
	}
	run := o.run()
	sim, err := run.Simulation(lg.Graph, nil, nil)
	if err != nil {
		return err
	}
	if !o.privateAnswer {
		sayGraphExperimentEstimate(g, o, sim, began)
	}
	kind, part, names, err := lg.ScoredPartition(ctx, o.communities, o.resolution, o.seed)
	if err != nil {
		return err
	}
	sim.Partition, sim.Names = part, names
	if o.privateAnswer {
		sayAnswerExperimentEstimate(g, o, sim, began)
	}
	res, err := run.Run(ctx, sim, kind, g.progress)
	switch {
	case err != nil:
		return err
	case res.Answers != nil && g.output == "json":
		return printJSON(out, res.Answers)
	case res.Answers != nil:
		return textreport.AnswerExperiment(out, res.Answers, o.trials, o.seed)
	case res.Sweep != nil && g.output == "json":
		return printJSON(out, res.Sweep)
	case res.Sweep != nil:
		textreport.GraphSweep(out, *res.Sweep)
		return nil
	}
	if o.plot != "" {
		if err := sourceview.Example(o.plot, lg.Graph, res.One); err != nil {
			return err
		}
	}
	if g.output == "json" {
		return printJSON(out, res.One)
	}
	textreport.GraphExperiment(out, res.One)
	return nil
}

// sayAnswerExperimentEstimate prints the private-answer experiment's
// estimate once its partition is known (cost.AnswerExperimentLine).
func sayAnswerExperimentEstimate(g *globalOptions, o *graphOptions, sim forecast.Simulation, began time.Time) {
	if !g.quiet {
		cost.TellAnswerExperiment(g.say, sim, o.taus, len(o.epsilons), began, longStep.Seconds())
	}
}

// sayGraphExperimentEstimate prints the graph experiment's estimate before
// it runs (cost.TellGraphExperiment).
func sayGraphExperimentEstimate(g *globalOptions, o *graphOptions, sim forecast.Simulation, began time.Time) {
	if g.quiet {
		return
	}
	cost.TellGraphExperiment(g.say, cost.GraphExperimentWork{Simulation: sim, Taus: o.taus, Epsilons: len(o.epsilons),
		Communities: o.communities, TimeBudget: o.timeBudget, Names: flagName}, began, longStep.Seconds())
}
