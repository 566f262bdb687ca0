package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// This file is the private answer (locate --private-answer, and each
// slot of serve --private-answer): its flags, their check
// (checkPrivateAnswer), its run (answerOnce) and its output.

// answerOptions are locate's private-answer flags.
type answerOptions struct {
	enabled bool
	values  string // raw readings CSV (or "-")
	cap     int
}

func addAnswerFlags(f *pflag.FlagSet, o *answerOptions) {
	f.BoolVar(&o.enabled, "private-answer", false, "publish only the source community, under (ε)-DP, from the operator's raw readings (--values FILE or --value-property P); charges --ledger")
	f.StringVar(&o.values, "values", "", "raw readings CSV node,value for --private-answer (- for standard input)")
	f.IntVar(&o.cap, "answer-cap", 0, "distance cap of the answer mechanism: 1 is randomized response, 0 chooses the most accurate (see docs/guarantee.md)")
	config.AddFlags(f, "epsilon", "delta", "alpha", "key", "ledger", "ledger-key", "epoch", "value-property")
}

// answerSummary is the output of locate --private-answer.
type answerSummary struct {
	RunID             string                   `json:"runId,omitempty"`
	Graph             string                   `json:"graph"`
	NodeCount         int                      `json:"nodeCount"`
	RelationshipCount int                      `json:"relationshipCount"`
	Scope             string                   `json:"scope"`
	Epoch             string                   `json:"epoch"`
	Communities       string                   `json:"communities"`
	Answer            *graphcloak.AnswerResult `json:"answer"`
	Forecast          *experiment.Forecast     `json:"forecast,omitempty"`
	Balance           *privacy.Balance         `json:"balance,omitempty"`
}

// runPrivateAnswer is locate --private-answer: answerOnce, then print.
func runPrivateAnswer(ctx context.Context, opts *locateOptions, out io.Writer) error {
	sum, err := answerOnce(ctx, opts)
	if err != nil {
		return err
	}
	if opts.g.output == "json" {
		return printJSON(out, sum)
	}
	return printAnswer(out, sum)
}

// answerOnce loads the graph and the raw readings, charges the ledger and
// draws the answer. On Neo4j a run record (command "answer", with the
// slot's scope and epoch) is started first and marked succeeded last with
// the published community in its parameters. The ledger is charged before
// the draw and an epoch is never drawn twice: a run that fails after the
// charge loses that epoch's answer (a retry is refused as already charged).
func answerOnce(ctx context.Context, opts *locateOptions) (sum *answerSummary, err error) {
	g := opts.g
	cfg := &g.cfg.Config
	o := &opts.privateAnswer
	after := newAfterRun(ctx) // one deadline for everything deferred below
	defer after.Close()
	if err := checkPrivateAnswer(opts); err != nil {
		return nil, err
	}
	isDB := opts.graph == neo4jSpec
	var client *connector.Client
	var run job.Run
	if isDB {
		if client, err = connectProjection(ctx, g); err != nil {
			return nil, err
		}
		defer func() { client.Close(after.Context()) }()
	}
	ledger, err := openReleaseLedger(ctx, g, client)
	if err != nil {
		return nil, err
	}
	if cfg.Privacy.Epoch == "" {
		cfg.Privacy.Epoch = newRunID()
	}
	if isDB {
		if run, err = startAnswerRun(ctx, opts, client); err != nil {
			return nil, err
		}
		defer func() { job.RecordFailure(after.Context(), g.logger, run, err) }()
	}
	pull, endPull := g.pullProgress()
	in := &locateInputs{isDB: isDB}
	in.commKind, in.commArg, _ = strings.Cut(opts.communities, ":")
	lopt := loadOptions{Client: client, ValueProperty: cfg.Projection.ValueProperty, Progress: pull}
	if in.commKind == "property" {
		lopt.CommunityProperty = in.commArg
	}
	lg, err := loadGraph(ctx, cfg, opts.graph, lopt)
	endPull()
	if err != nil {
		return nil, err
	}
	var y []float64
	if lg.Pulled != nil {
		y = lg.Pulled.Values
	}
	if o.values != "" {
		header, _ := csvin.ParseHeader(cfg.Input.Header)
		readings, err := readReadings(opts.stdin, o.values, header)
		if err != nil {
			return nil, err
		}
		if y, err = graphcloak.ValuesByKey(lg.Graph, readings); err != nil {
			return nil, err
		}
	}
	aj, err := answerJob(ctx, opts, in, client, lg)
	if err != nil {
		return nil, err
	}
	aj.Values, aj.Ledger = y, ledger
	if cfg.Privacy.KeyFile != "" {
		key, err := privacy.LoadKey(cfg.Privacy.KeyFile)
		if err != nil {
			return nil, err
		}
		aj.Noise = privacy.KeyedNoise(key)
	}
	res, err := graphcloak.Answer(ctx, aj)
	clear(y)
	if err != nil {
		return nil, err
	}
	sum = &answerSummary{RunID: runIDOf(run), Graph: opts.graph, NodeCount: lg.Graph.N(), RelationshipCount: lg.Graph.NumEdges(),
		Scope: aj.Scope, Epoch: aj.Epoch, Communities: opts.communities, Answer: res}
	if bal, err := ledger.Balance(ctx, aj.Scope); err == nil && len(bal) == 1 {
		sum.Balance = &bal[0]
	}
	if opts.forecastTrials > 0 {
		e := experiment.Graph{Graph: lg.Graph, Partition: aj.Partition, Tau: aj.Tau, Sources: 1, Trials: opts.forecastTrials,
			Estimator: aj.Estimator, Seed: aj.Seed, Delta: cfg.Privacy.Delta}
		r, err := experiment.RunAnswer(ctx, experiment.Answer{Graph: &e, Calibrate: &res.Calibration})
		if err != nil {
			return nil, err
		}
		f := experiment.ForecastOfAnswer(r)
		sum.Forecast = &f
	}
	if run != nil {
		rec := run.Record()
		rec.NodeCount, rec.RelationshipCount = sum.NodeCount, sum.RelationshipCount
		rec.ReleaseID, rec.Epsilon, rec.Rho = res.ReleaseID, res.Calibration.Epsilon, res.Calibration.Rho
		rec.ComputeMillis = res.Millis
		for k, v := range map[string]any{"community": res.Community, "communityId": res.CommunityID,
			"mechanism": res.Calibration.Mechanism, "cap": res.Calibration.Cap, "scale": res.Calibration.Scale} {
			rec.Parameters[k] = v
		}
		if err = run.Succeed(ctx); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// startAnswerRun writes the answer's run record ("running", with a lease).
func startAnswerRun(ctx context.Context, opts *locateOptions, client *connector.Client) (job.Run, error) {
	cfg := &opts.g.cfg.Config
	id := opts.runID
	if id == "" {
		id = newRunID()
	}
	rec := connector.RunRecord{RunID: id, Command: "answer", Database: cfg.Neo4j.Database, Projection: projectionOf(cfg),
		StartedAt: time.Now().UTC(), Scope: cfg.Privacy.Scope, Epoch: cfg.Privacy.Epoch,
		Parameters: map[string]any{"estimator": cfg.Recovery.Estimator, "communities": opts.communities,
			"tau": cfg.Privacy.Tau, "alpha": cfg.Privacy.Alpha, "answerCap": opts.privateAnswer.cap}}
	return locateBackend(opts.g, client).StartRun(ctx, rec, connector.DefaultLease)
}

func runIDOf(run job.Run) string {
	if run == nil {
		return ""
	}
	return run.Record().RunID
}

// checkPrivateAnswer validates the flags of locate --private-answer.
func checkPrivateAnswer(opts *locateOptions) error {
	cfg := &opts.g.cfg.Config
	o := &opts.privateAnswer
	switch {
	case opts.graph == "":
		return usageErrorf("--graph is required (neo4j, a generator such as karate, or file:PATH)")
	case opts.released != "" || opts.releasedProperty != "" || opts.releaseRun != "":
		return usageErrorf("--private-answer reads raw readings (--values or --value-property), not released values")
	case o.values == "" && cfg.Projection.ValueProperty == "":
		return usageErrorf("--private-answer needs the raw readings: --values FILE (or -) or, on --graph neo4j, --value-property P")
	case o.values != "" && cfg.Projection.ValueProperty != "":
		return usageErrorf("give either --values or --value-property, not both")
	case cfg.Projection.ValueProperty != "" && opts.graph != neo4jSpec:
		return usageErrorf("--value-property needs --graph neo4j")
	case o.cap < 0 || o.cap > privacy.MaxAnswerCap:
		return inputErrorf("--answer-cap must be in 0..%d, got %d", privacy.MaxAnswerCap, o.cap)
	case opts.out != "" || opts.plot != "":
		return usageErrorf("--out and --plot draw per-node results; a private answer has none (use -o json)")
	}
	if cfg.Recovery.Sources > 1 {
		return usageErrorf("--private-answer publishes one community: --sources must be 1")
	}
	if err := checkPrivacy(cfg.Privacy.Epsilon, 0.5); err != nil {
		return err
	}
	if err := checkPositive("tau", cfg.Privacy.Tau); err != nil {
		return err
	}
	in := &locateInputs{isDB: opts.graph == neo4jSpec}
	in.commKind, in.commArg, _ = strings.Cut(opts.communities, ":")
	return checkCommunities(opts, in)
}

// answerJob assembles the answer job with its communities (as locate's).
func answerJob(ctx context.Context, opts *locateOptions, in *locateInputs, client *connector.Client, lg *loadedGraph) (graphcloak.AnswerJob, error) {
	cfg := &opts.g.cfg.Config
	graph := lg.Graph
	aj := graphcloak.AnswerJob{Graph: graph, Tau: cfg.Privacy.Tau, Epsilon: cfg.Privacy.Epsilon, Alpha: cfg.Privacy.Alpha,
		Cap: opts.privateAnswer.cap, Seed: uint64(cfg.Write.RandomSeed), Estimator: cfg.Recovery.Estimator,
		Scope: cfg.Privacy.Scope, Epoch: cfg.Privacy.Epoch}
	var err error
	aj.Partition, aj.Names, err = partitionOf(ctx, opts, in, client, lg, aj.Seed)
	return aj, err
}

// printAnswer prints a private answer.
func printAnswer(out io.Writer, s *answerSummary) error {
	a := s.Answer
	c := a.Calibration
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships; %d communities (%s)\n", s.Graph, s.NodeCount, s.RelationshipCount, c.K, s.Communities)
	fmt.Fprintf(out, "private answer: community %s\n", a.Community)
	if !a.ExactSource {
		fmt.Fprintln(out, "WARNING: the readings are not exactly the diffusion of one source at τ: the guarantee covers the node the\n"+
			"         estimator chose, not the sources (docs/guarantee.md, private answers)")
	}
	fmt.Fprintf(out, "mechanism %s (cap %g, ε′ = %.4f per hop), ε = %g for moving the source α = %g hop(s); charged ρ = %.6g to scope %q, epoch %q\n",
		c.Mechanism, c.Cap, c.Scale, c.Epsilon, c.Alpha, c.Rho, s.Scope, s.Epoch)
	if s.Balance != nil {
		fmt.Fprintf(out, "ledger: ρ spent %.6g of %.6g (ε spent %.4g at δ = %g)\n", s.Balance.RhoSpent, s.Balance.RhoBudget, s.Balance.EpsilonSpent, s.Balance.Budget.Delta)
	}
	fmt.Fprintln(out, "what the answer tells an analyst (posterior over communities, public):")
	if err := printReport(out, a.Posterior, nil); err != nil {
		return err
	}
	if f := s.Forecast; f != nil {
		fmt.Fprintf(out, "forecast (%d simulated sources): the published community is the source's %.3f [%.3f, %.3f] (chance %.4f); "+
			"the source's community is in the analyst's 90%% set %.3f, %.1f communities\n",
			f.Trials, f.CommunityAccuracy, f.Low, f.High, f.Chance, f.In90Rate, f.In90Size)
	}
	return nil
}
