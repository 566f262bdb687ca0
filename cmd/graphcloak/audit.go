package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
	"github.com/graphcloak/graphcloak/stores"
)

// auditOptions are the flags of "audit" and "audit merge".
type auditOptions struct {
	graph, shard, save string
	cacheDir           string // the work store (--cache-dir)
	fitTolerance       float64
	sensorNoise        noiseFlags
	precise, estimate  bool
	parts              []string // audit merge's arguments
}

const auditHelp = `audit runs the private answer's certified recovery over every source of the
graph — the pass that proves which sources no reading can tell apart at τ, the
slow part of an answer's audit — and keeps its certificate in the store of
work (--cache-dir; see graphcloak cache), where plan, locate --private-answer
and serve find it by default; a certificate a plan or an answer left there
is reused, not computed again. --save FILE writes it to FILE too (for
--answer-cache FILE).

On a large graph the pass runs in shards on as many machines as you have:
each takes --shard i/N (blocks of 32 sources ≡ i mod N) and --save PART, and
"graphcloak audit merge PART... --save FILE" checks that they are every shard
of one pass (one graph, τ, --fit-tolerance and version) exactly once and writes
the certificate one process would (the same norms and classes). With
--ledger-key every part and the certificate are sealed under it. See
docs/sharding.md for Kubernetes Indexed Jobs, Slurm arrays and GNU parallel.

An audit stopped part way (a signal, a pre-empted pod) resumes: the blocks it
finished are kept in SAVE.checkpoint (appended to at most every 5 s), and the
same command run again says so and computes only the rest, writing the
certificate an uninterrupted run writes. --estimate prints how long the pass
will take (its cost model at this machine's measured rate) and computes
nothing; a pass modelled over 5 s prints that estimate before it starts. The
pass runs once, with the action its weakest source needs (decided first from
the hubs); a second pass — with --sensor-noise, at the tolerance the noise
needs, after a pass of the norms alone; or the precise action, when a source
the hubs did not show is too weak for the loose one — is said before it
starts, with its estimate.`

func newAuditCmd(g *globalOptions) *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Certify the private answer's recovery on a graph (every source), in shards if need be",
		Long:  auditHelp,
		Example: `  graphcloak audit --graph karate --tau 1 --save answer.json
  graphcloak audit --graph file:edges.csv --tau 1 --save answer.json --estimate   # how long, before you run it
  graphcloak audit --graph file:edges.csv --tau 1 --shard 0/4 --save part-0.json   # … 3/4
  graphcloak audit merge --graph file:edges.csv --tau 1 part-*.json --save answer.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAudit(cmd.Context(), g, o, g.stdout)
		},
	}
	f := cmd.Flags()
	addAuditFlags(cmd, o)
	f.StringVar(&o.shard, "shard", "", "run shard i of N (i/N, 0 ≤ i < N) of the pass and --save it as a part for audit merge")
	f.BoolVar(&o.precise, "precise", false, "run the pass with the precise action at once (needed by every shard when a single run says so)")
	addCacheDirFlag(f, &o.cacheDir)
	f.BoolVar(&o.estimate, "estimate", false, "only estimate how long the pass will take (its cost model at this machine's measured rate, about 0.3 s); compute and write nothing")
	merge := &cobra.Command{
		Use:   "merge PART...",
		Short: "Join the parts of a sharded audit into the certificate one process would write",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.parts = args
			return runAuditMerge(cmd.Context(), g, o, g.stdout)
		},
	}
	addAuditFlags(merge, o)
	cmd.AddCommand(merge)
	return cmd
}

func addAuditFlags(cmd *cobra.Command, o *auditOptions) {
	f := cmd.Flags()
	graphFlag(f, &o.graph, "", graphAny, "graph spec")
	f.Float64Var(&o.fitTolerance, "fit-tolerance", recovery.DefaultFitTolerance,
		"relative misfit allowed between the readings and one source's diffusion at τ (as locate --private-answer)")
	addSensorNoiseFlag(f, &o.sensorNoise)
	f.StringVar(&o.save, "save", "", "the certificate (for --answer-cache; without it, the store's) or, with --shard, the part to write")
	config.AddFlags(f, "tau", "header", "duplicate-edges", "ledger-key", "uri", "user", "password", "database", "projection", "node-labels",
		"relationship-types", "relationship-weight-property", "node-key-property")
}

func (o *auditOptions) check() error {
	switch {
	case o.graph == "":
		return errkind.Usagef("--graph is required")
	case o.save == "" && (o.shard != "" || o.parts != nil):
		return errkind.Usagef("--save FILE is required: the part (or the merged certificate) is what a sharded audit makes")
	}
	return nil
}

func runAudit(ctx context.Context, g *globalOptions, o *auditOptions, out io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	opt, err := auditCertifierOptions(o)
	if err != nil {
		return err
	}
	lg, err := auditGraph(ctx, g, o.graph)
	if err != nil {
		return err
	}
	opt.SensorNoise = o.sensorNoise.At(lg.Graph.N()) // before AuditCache: ν names the store's certificate
	cache, store, err := jobfiles.AuditCache(&g.cfg.Config, o.save, o.cacheDir, o.shard != "", g.logger, lg.Graph, g.cfg.Privacy.Tau, opt)
	if err != nil {
		return err
	}
	if store != nil && opt.SensorNoise != 0 { // the norms' pass is the stored certificate's at the default T
		opt.WeakestSignal = storedWeakestSignal(g, o.cacheDir, lg.Graph)
	}
	pass := answer.AuditPass{Graph: lg.Graph, Tau: g.cfg.Privacy.Tau, Options: opt, Cache: cache, Store: store,
		CheckpointEvery: jobfiles.CheckpointEvery(), Long: longStep, Say: g.say, Logger: g.logger, Progress: g.progress,
		Estimated: func(est *answer.WorkEstimate) { g.firstEstimates.Keep(lg.Graph, est) }}
	var r answer.AuditReport
	if o.estimate {
		r, err = pass.Estimate()
	} else {
		r, err = pass.Run(ctx)
	}
	if err != nil {
		return err
	}
	if store != nil && !o.estimate {
		trimStore(g, o.cacheDir)
	}
	r.Graph, r.Shard = o.graph, o.shard
	return printAuditResult(g, out, r)
}

// storedWeakestSignal is the weakest source signal of the certificate at
// the default fit tolerance the store of work in cacheDir holds for gr
// (answer.Cache.WeakestSignal; 0 without one): a sensor-noise audit given
// it does not run its pass of the norms.
func storedWeakestSignal(g *globalOptions, cacheDir string, gr *laplacian.Graph) float64 {
	w, err := jobfiles.WorkStore(&g.cfg.Config, cacheDir, g.logger)
	if err != nil {
		return 0
	}
	return w.Answer(gr, g.cfg.Privacy.Tau, 0, 0).WeakestSignal(gr, g.cfg.Privacy.Tau)
}

// auditCertifierOptions are the certifier's options that audit's flags
// set before the graph is read: the fit's tolerance and precision, and
// --shard.
func auditCertifierOptions(o *auditOptions) (recovery.CertifierOptions, error) {
	opt := recovery.CertifierOptions{Tol: o.fitTolerance, Precise: o.precise}
	if o.shard != "" {
		i, n, err := sensitivity.ParseShard(o.shard)
		if err != nil {
			return opt, errkind.Usagef("--shard: %s", err.Error())
		}
		opt.Shard = recovery.Shard{I: i, N: n}
	}
	return opt, nil
}

func runAuditMerge(ctx context.Context, g *globalOptions, o *auditOptions, out io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	cache, err := jobfiles.AnswerCache(&g.cfg.Config, o.save)
	if err != nil {
		return err
	}
	parts, err := answer.LoadParts(o.parts, cache.MACKey)
	if err != nil {
		return err
	}
	lg, err := auditGraph(ctx, g, o.graph)
	if err != nil {
		return err
	}
	r, err := answer.MergeAudit(ctx, lg.Graph, g.cfg.Privacy.Tau, o.fitTolerance, parts, cache)
	if err != nil {
		return err
	}
	r.Graph = o.graph
	return printAuditResult(g, out, r)
}

// printAuditResult prints an audit's report; a shard's says how to
// merge the parts.
func printAuditResult(g *globalOptions, out io.Writer, r answer.AuditReport) error {
	if g.output == "json" {
		return printJSON(out, r)
	}
	textreport.Audit(out, r, "graphcloak audit merge <every part> --save FILE")
	return nil
}

// auditGraph loads the audit's graph in key order, so that every shard of
// a pass — on any machine, from an edge list or Neo4j in any order —
// covers the same blocks of the same nodes.
func auditGraph(ctx context.Context, g *globalOptions, spec string) (*stores.Graph, error) {
	lg, err := loadExperimentGraph(ctx, g, spec, "")
	if err != nil {
		return nil, err
	}
	return lg.InKeyOrder()
}
