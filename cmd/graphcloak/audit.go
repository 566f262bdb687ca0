package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
	"github.com/graphcloak/graphcloak/stores"
)

// auditOptions are the flags of "audit" and "audit merge".
type auditOptions struct {
	graph, shard, save string
	fitTolerance       float64
	sensorNoise        float64
	precise, estimate  bool
	parts              []string // audit merge's arguments
}

const auditHelp = `audit runs the private answer's certified recovery over every source of the
graph — the pass that proves which sources no reading can tell apart at τ, the
slow part of an answer's audit — and saves its certificate, which
locate --private-answer, serve and plan reuse with --answer-cache FILE.

On a large graph the pass runs in shards on as many machines as you have:
each takes --shard i/N (blocks of 32 sources ≡ i mod N) and --save PART, and
"graphcloak audit merge PART... --save FILE" checks that they are every shard
of one pass (one graph, τ, --fit-tolerance and version) exactly once and writes
the certificate one process would (the same norms and classes). With
--ledger-key every part and the certificate are sealed under it. See
docs/sharding.md for Kubernetes Indexed Jobs, Slurm arrays and GNU parallel.

An audit stopped part way (a signal, a pre-empted pod) resumes: the blocks it
finished are kept in SAVE.checkpoint (rewritten at most every 5 s), and the
same command run again says so and computes only the rest, writing the
certificate an uninterrupted run writes. --estimate prints how long the pass
will take (its cost model at this machine's measured rate) and computes
nothing; a pass modelled over 5 s prints that estimate before it starts.`

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
	f.StringVar(&o.graph, "graph", "", "graph spec, as sensitivity --graph (neo4j, a generator such as karate, or file:PATH)")
	f.Float64Var(&o.fitTolerance, "fit-tolerance", recovery.DefaultFitTolerance,
		"relative misfit allowed between the readings and one source's diffusion at τ (as locate --private-answer)")
	addSensorNoiseFlag(f, &o.sensorNoise)
	f.StringVar(&o.save, "save", "", "the certificate (for --answer-cache) or, with --shard, the part to write")
	config.AddFlags(f, "tau", "header", "duplicate-edges", "ledger-key", "uri", "user", "password", "database", "projection", "node-labels",
		"relationship-types", "relationship-weight-property", "node-key-property")
}

func (o *auditOptions) check() error {
	switch {
	case o.graph == "":
		return usageErrorf("--graph is required")
	case o.save == "":
		return usageErrorf("--save FILE is required: the certificate (or the part) is what audit makes")
	}
	return nil
}

func runAudit(ctx context.Context, g *globalOptions, o *auditOptions, out io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	opt := recovery.CertifierOptions{Tol: o.fitTolerance, SensorNoise: o.sensorNoise, Precise: o.precise}
	if o.shard != "" {
		i, n, err := sensitivity.ParseShard(o.shard)
		if err != nil {
			return usageErrorf("--shard: %v", err)
		}
		opt.Shard = recovery.Shard{I: i, N: n}
	}
	cache, err := inputfiles.AnswerCache(&g.cfg.Config, o.save)
	if err != nil {
		return err
	}
	lg, err := auditGraph(ctx, g, o.graph)
	if err != nil {
		return err
	}
	tau := g.cfg.Privacy.Tau
	if o.estimate {
		return runAuditEstimate(g, o, lg.Graph, opt, cache, out)
	}
	// A certificate at --save that verifies is reused (CertifyAnswers):
	// no checkpoint and no estimate then.
	_, _, loadErr := cache.Load(lg.Graph, tau, opt)
	reused := loadErr == nil && opt.Shard.N == 0
	cp, resumed, err := openAuditCheckpoint(g, o, lg.Graph, cache, opt, reused)
	if err != nil {
		return err
	}
	opt.Checkpoint = cp
	var est answer.WorkEstimate
	estErr := errors.New("the certificate is reused")
	if !reused {
		est, estErr = answer.EstimateAudit(lg.Graph, tau, opt, nil, longStep)
		if estErr == nil {
			g.stepRates.keep(lg.Graph, &est) // the pass's own line, if any, prices with it
		}
		if estErr == nil && est.Seconds > longStep.Seconds() {
			g.say(est.String())
		}
	}
	opt.Progress = g.progress("answer audit")
	r, err := answer.Certify(ctx, lg.Graph, tau, opt, cache)
	if err != nil {
		saveErr := cp.Save()
		switch {
		case saveErr != nil:
			g.logger.Warn("could not save the audit's checkpoint", "checkpoint", cp.Path, "error", saveErr)
		case ctx.Err() != nil:
			g.say(fmt.Sprintf("audit interrupted: %d of %d sources saved in %s; run the same command again to resume from there",
				cp.Sources(false)+cp.Sources(true), lg.Graph.N(), cp.Path))
		}
		return err
	}
	if err := cp.Remove(); err != nil {
		g.logger.Warn("could not remove the audit's checkpoint", "checkpoint", cp.Path, "error", err)
	}
	r.Graph, r.Shard, r.ResumedSources = o.graph, o.shard, resumed
	if estErr == nil {
		r.Estimate = &est
	}
	return printAuditResult(g, out, r)
}

// runAuditEstimate is audit --estimate: the pass's cost model priced at
// the step rate measured on the graph (about 0.3 s), less what a
// checkpoint beside --save holds; nothing is computed or written.
func runAuditEstimate(g *globalOptions, o *auditOptions, lg *laplacian.Graph, opt recovery.CertifierOptions, cache answer.Cache, out io.Writer) error {
	tau := g.cfg.Privacy.Tau
	start := time.Now()
	cp, err := answer.OpenCheckpoint(answer.CheckpointPath(o.save), lg, tau, opt, cache)
	if err != nil {
		g.logger.Warn(err.Error())
	} else {
		opt.Checkpoint = cp
	}
	est, err := answer.EstimateAudit(lg, tau, opt, nil, 0)
	if err != nil {
		return err
	}
	r := answer.AuditReport{Graph: o.graph, Shard: o.shard, NodeCount: lg.N(), Tau: tau, FitTolerance: opt.Tol, Precise: o.precise,
		Save: o.save, Millis: time.Since(start).Milliseconds(), Estimate: &est, EstimateOnly: true}
	if opt.Checkpoint != nil {
		r.ResumedSources = cp.Sources(true)
		if !o.precise {
			r.ResumedSources += cp.Sources(false)
		}
	}
	return printAuditResult(g, out, r)
}

// checkpointPeriodEnv sets how often a running audit rewrites its
// checkpoint (a duration; "0s" or negative: after every block of 32
// sources): tests that kill an audit set it so.
const checkpointPeriodEnv = "GRAPHCLOAK_CHECKPOINT_PERIOD"

// openAuditCheckpoint opens the checkpoint beside the audit's --save
// (answer.CheckpointPath), resuming it when it is of this audit and
// saying so, and warning when one is there but cannot be resumed (none
// is read when the certificate is reused). It returns the checkpoint and
// the sources it resumes.
func openAuditCheckpoint(g *globalOptions, o *auditOptions, lg *laplacian.Graph, cache answer.Cache, opt recovery.CertifierOptions,
	reused bool) (*answer.Checkpoint, int, error) {
	cp, err := answer.OpenCheckpoint(answer.CheckpointPath(o.save), lg, g.cfg.Privacy.Tau, opt, cache)
	var refused *answer.CheckpointRefusedError
	switch {
	case errors.As(err, &refused):
		if !reused {
			g.logger.Warn(err.Error())
		}
	case err != nil:
		return nil, 0, err
	}
	if v := os.Getenv(checkpointPeriodEnv); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			cp.Every = d
			if d <= 0 {
				cp.Every = -1
			}
		}
	}
	if reused {
		return cp, 0, nil
	}
	resumed := cp.Sources(true)
	if !o.precise {
		resumed += cp.Sources(false)
	}
	if resumed > 0 {
		g.say(fmt.Sprintf("resuming the audit from %s: %d of %d sources already done", cp.Path, resumed, lg.N()))
	}
	return cp, resumed, nil
}

func runAuditMerge(ctx context.Context, g *globalOptions, o *auditOptions, out io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	cache, err := inputfiles.AnswerCache(&g.cfg.Config, o.save)
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
