package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sensitivityOptions are the flags of "sensitivity": --graph's request
// (sensitivity.Request) or --line's n, m and T.
type sensitivityOptions struct {
	graph string
	sensitivity.Request
	cacheDir string // --cache-dir: the work store Δ2 is read from and kept in

	line bool
	n, m int
	T    float64
}

// sensitivityHelp is the sensitivity command's help text.
const sensitivityHelp = `Compute Δ2 = α · max over adjacent locations ‖M_i − M_j‖₂ / d(i,j), the L2
sensitivity that calibrates the Gaussian noise of a release, together with the
condition number κ2(M).

With --graph, M = exp(−τL) on the graph (hop metric: every edge has length 1;
edge weights change L, not the metric). Small graphs use a dense
eigendecomposition certified a posteriori; larger ones prove a cheap bound per
edge (effective resistance, bridges, Gauss–Radau) and refine only the edges
those bounds cannot rule out: by Chebyshev columns of exp(−2τL) or, on graphs
with hubs or small-world ones, by a Lanczos bracket per edge, both with
rigorous truncation and rounding bounds. On 301–5 000 nodes where Δ2 may be
tiny (large τ) the methods exact at any τ run instead: the certified slow
eigenpairs when few are needed, else all columns of a Chebyshev polynomial
shifted by a certified lower bound on λ₂ (panels). --time-budget makes it
anytime: it then reports the proven upper bound reached. --dry-run prints the method and its modelled time and
memory without computing Δ2 (it times the per-edge bounds on a sample and
pilots the refinement for at most 2 s). With --line, M is the 1-D heat kernel
on [0, 1] (m sensors at i/m, sources on the grid j/n).

Δ2 is never an estimate: "certified" is true for an exact value (to "slack",
rounded up) or a proven upper bound, and "exact" says which. kappa2 is null
when it was not computed (sparse path, or a matrix too large for an SVD) and
"+Inf" when M is numerically singular.`

func newSensitivityCmd(g *globalOptions) *cobra.Command {
	o := &sensitivityOptions{}
	cmd := &cobra.Command{
		Use:   "sensitivity",
		Short: "Certified L2 sensitivity Δ2 of a heat-diffusion measurement",
		Long:  sensitivityHelp,
		Example: `  graphcloak sensitivity --graph sbm:sizes=250x250,pin=0.05,pout=0.001,seed=7 --tau 2 -o json
  graphcloak sensitivity --graph complete:n=50 --tau 0.1 --alpha 0.5
  graphcloak sensitivity --graph gt:as-22july06 --tau 0.5 --time-budget 60s --save as.cert.json
  graphcloak sensitivity --line --n 100 --m 50 --tau 0.05 -o json`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkSensitivityFlags(g, o, cmd.Flags()); err != nil {
				return err
			}
			o.Tau, o.Alpha = g.cfg.Privacy.Tau, g.cfg.Privacy.Alpha
			return runSensitivity(cmd.Context(), g, o, g.stdout)
		},
	}
	fl := cmd.Flags()
	graphFlag(fl, &o.graph, "", graphAny, "graph spec")
	config.AddFlags(fl, "tau", "alpha", "header", "duplicate-edges", "ledger-key") // one configuration path: flag > GRAPHCLOAK_PRIVACY_TAU > privacy.tau > default
	fl.StringVar(&o.Method, "method", "auto", "graph method: auto, dense, sparse (the plan picks columns or lanczos), columns (Chebyshev columns), lanczos (per-edge Lanczos brackets; fast with hubs and on small-world graphs) slow-modes (certified slow eigenpairs; exact at large τ, up to 5 000 nodes), panels (all columns of a shifted Chebyshev polynomial; exact at any τ, up to 5 000 nodes) or gram (every column of exp(−2τL), 32 at a time; exact, one action on all n columns)")
	fl.IntVar(&o.DenseLimit, "dense-limit", 2500, "largest node count for the dense method (0 disables it)")
	durationVar(fl, &o.TimeBudget, "time-budget", 0, "stop the sparse refinement after this long and report the certified upper bound reached (0 = run to completion)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print the method and its modelled time and memory; compute nothing")
	fl.StringVar(&o.Save, "save", "", "write a sensitivity certificate (Δ2, τ, α, graph fingerprint, method, version) to this JSON file, for release --sensitivity-cert")
	addCacheDirFlag(fl, &o.cacheDir)
	fl.StringVar(&o.Shard, "shard", "", "compute shard i of N (i/N, 0 ≤ i < N) of the exact Δ2 and --save it as a partial certificate; graphcloak sensitivity merge joins all N into the certificate one process would write (docs/sharding.md)")
	fl.BoolVar(&o.line, "line", false, "the 1-D heat kernel on [0, 1] instead of a graph")
	fl.IntVar(&o.n, "n", 0, "line: source grid points j/n, j = 1..n")
	fl.IntVar(&o.m, "m", 0, "line: sensors at i/m, i = 1..m")
	fl.Float64Var(&o.T, "T", 0, "old spelling of --tau for --line")
	_ = fl.MarkHidden("T")
	config.AddFlags(fl, "uri", "user", "password", "database", "projection", "node-labels", "relationship-types",
		"relationship-weight-property", "node-key-property")
	cmd.AddCommand(newSensitivityMergeCmd(g))
	return cmd
}

// checkSensitivityFlags checks the combination of sensitivity's flags
// (sensitivity.CheckKernel, then --graph's CheckCombination) and reads
// --line's τ (--tau, or its old spelling --T, into o.T).
func checkSensitivityFlags(g *globalOptions, o *sensitivityOptions, f *pflag.FlagSet) error {
	if err := sensitivity.CheckKernel(o.line, o.graph, func(p errkind.Param) bool { return f.Changed(string(p)) }); err != nil {
		return err
	}
	if !o.line {
		return o.CheckCombination()
	}
	if f.Changed("tau") {
		o.T = g.cfg.Privacy.Tau
	}
	return nil
}

func runSensitivity(ctx context.Context, g *globalOptions, o *sensitivityOptions, out io.Writer) error {
	if err := sensitivity.CheckPositive(sensitivity.ParamAlpha, o.Alpha); err != nil {
		return err
	}
	if o.DryRun {
		p, err := graphSensitivityPlan(ctx, g, o)
		if err != nil {
			return err
		}
		if g.output == "json" {
			return printJSON(out, p)
		}
		return textreport.SensitivityPlan(out, p)
	}
	var res sensitivity.Report
	var err error
	if o.line {
		res, err = sensitivity.CheckedLineReport(o.n, o.m, o.T, o.Alpha)
	} else {
		res, err = graphSensitivity(ctx, g, o)
	}
	if err != nil {
		return err
	}
	if g.output == "json" {
		return printJSON(out, res)
	}
	return textreport.SensitivityReport(out, res, flagName)
}

// sensitivityGraph validates the --graph flags and loads the graph with
// the options they ask for.
func sensitivityGraph(ctx context.Context, g *globalOptions, o *sensitivityOptions) (*laplacian.Graph, sensitivity.Options, error) {
	if err := o.CheckMethod(); err != nil {
		return nil, sensitivity.Options{}, err
	}
	if err := graphcloak.CheckDiffusion(o.Tau, o.Alpha); err != nil {
		return nil, sensitivity.Options{}, err
	}
	opt, err := o.Options() // --time-budget refuses negative durations itself (config.DurationVar)
	if err != nil {
		return nil, sensitivity.Options{}, err
	}
	lg, err := loadGraphFlag(ctx, g, o.graph, "", false)
	if err != nil {
		return nil, sensitivity.Options{}, flagError("--graph", err)
	}
	return lg.Graph, opt, nil
}

// graphSensitivityPlan is sensitivity --graph --dry-run: the method
// sensitivity.Graph would use and its modelled cost, or reused when the
// store holds Δ2 (job.WorkCache.PlanCertify).
func graphSensitivityPlan(ctx context.Context, g *globalOptions, o *sensitivityOptions) (sensitivity.PlanReport, error) {
	gr, opt, err := sensitivityGraph(ctx, g, o)
	if err != nil {
		return sensitivity.PlanReport{}, err
	}
	spec, err := o.CertifySpec(gr, o.graph, opt)
	if err != nil {
		return sensitivity.PlanReport{}, err
	}
	store, err := workStore(g, o.cacheDir)
	if err != nil {
		return sensitivity.PlanReport{}, err
	}
	return store.PlanCertify(spec, processPeakBytes()), nil // priced 0 s when the store holds Δ2
}

// graphSensitivity is sensitivity --graph: the certified Δ2 of a graph
// (or of one shard, --shard), saved as a certificate with --save.
func graphSensitivity(ctx context.Context, g *globalOptions, o *sensitivityOptions) (sensitivity.Report, error) {
	began := time.Now()
	gr, opt, err := sensitivityGraph(ctx, g, o)
	if err != nil {
		return sensitivity.Report{}, err
	}
	opt.Status = progressbar.SensitivityOnTerminal(g.stderr)
	var starting func() // on a pipe: the estimate (unless the store holds Δ2), then progress lines
	if opt.Status == nil {
		starting = func() { sayDelta2Estimate(g, gr, o.Tau, opt, began) }
		opt.Progress = g.progress("Δ2")
	}
	opt.Done = ctx.Done() // the engine stops too, not only this command
	spec, err := o.CertifySpec(gr, o.graph, opt)
	if err != nil {
		return sensitivity.Report{}, err
	}
	spec.Software, spec.Starting = buildinfo.Read().String(), starting
	if o.Save != "" { // sealed under the ledger key, when one is given
		if spec.MACKey, err = jobfiles.CertificateMACKey(&g.cfg.Config); err != nil {
			return sensitivity.Report{}, errkind.Inputf("--save: %w", err)
		}
	}
	if o.Shard != "" {
		g.logger.Debug("computing a shard of Δ2", "shard", o.Shard, "nodes", gr.N(), "edges", gr.NumEdges(), "tau", o.Tau, "method", o.Method)
	} else {
		g.logger.Debug("computing Δ2", "nodes", gr.N(), "edges", gr.NumEdges(), "tau", o.Tau, "method", o.Method)
	}
	store, err := workStore(g, o.cacheDir)
	if err != nil {
		return sensitivity.Report{}, err
	}
	res, err := store.Certify(ctx, spec) // an exact Δ2 the store holds is reused; one computed is kept
	if opt.Status != nil && (o.Shard == "" || ctx.Err() == nil) {
		fmt.Fprintln(g.stderr) // ends the progress line; an interrupted shard leaves it
	}
	return res, err
}

// sayDelta2Estimate prints the sensitivity command's estimate before Δ2
// is computed at τ on gr with opt (cost.SensitivityLine).
func sayDelta2Estimate(g *globalOptions, gr *laplacian.Graph, tau float64, opt sensitivity.Options, began time.Time) {
	if !g.quiet {
		cost.TellSensitivity(g.say, gr, tau, opt, flagName, began, longStep.Seconds())
	}
}
