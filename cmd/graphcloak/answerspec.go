package main

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// This file is the private answer's command side (locate
// --private-answer, and each slot of serve --private-answer): its flags,
// their check into a job.AnswerSpec (checkPrivateAnswer), its keys read
// (answerSpecWithKeys), the job's wiring (answerOnce) and its output. What the answer does lives in job.

// answerOptions are locate's private-answer flags.
type answerOptions struct {
	enabled bool
	values  string // raw readings CSV (or "-")
	cap     int
	// fitTolerance and onMismatch: the certified recovery (job.AnswerSpec).
	fitTolerance float64
	model        modelFlags
	onMismatch   string
	// diagnose prints what was measured of readings outside the model
	// (not private) to the operator's standard error.
	diagnose bool
	cache    string // --answer-cache
	cacheDir string // --cache-dir: the work store (workStore), unless --answer-cache
	// memo: serve keeps the answer model between slots.
	memo *answer.Memo
}

func addAnswerFlags(f *pflag.FlagSet, o *answerOptions) {
	f.BoolVar(&o.enabled, "private-answer", false, "publish only the source community, under (ε)-DP, from the operator's raw readings (--values FILE or --value-property P); charges --ledger")
	f.StringVar(&o.values, "values", "", "raw readings CSV node,value for --private-answer (- for standard input)")
	f.IntVar(&o.cap, "answer-cap", 0, "distance cap of the answer mechanism: 1 is randomized response, 0 chooses the most accurate (see docs/guarantee.md)")
	addFitFlags(f, &o.fitTolerance, &o.model, &o.onMismatch, &o.cache)
	addCacheDirFlag(f, &o.cacheDir)
	f.BoolVar(&o.diagnose, "diagnose", false,
		"NOT PRIVATE: for readings outside the model, print what was measured of them (misfits, a two-source fit, another τ) to standard error, for the operator at the keyboard only; never in the JSON, the run record or logs")
	config.AddFlags(f, "epsilon", "delta", "alpha", "key", "ledger", "ledger-key", "epoch", "value-property")
}

// runPrivateAnswer is locate --private-answer: answerOnce, then print.
func runPrivateAnswer(ctx context.Context, opts *locateOptions, out io.Writer) error {
	sum, err := answerOnce(ctx, opts)
	if opts.privateAnswer.diagnose {
		textreport.Diagnosis(opts.g.stderr, sum, err)
	}
	if err != nil {
		return err
	}
	if opts.g.output == "json" {
		return printJSON(out, sum)
	}
	return textreport.Answer(out, sum, flagName)
}

// answerOnce checks the flags and answers (stores.Open, then
// Stores.RunAnswer: job.PlanAnswer then job.ExecuteAnswer); a missing ledger or
// scope gets the budget --init command. Everything deferred
// (the failure record, the balance, closing the connection) shares one
// bookkeeping deadline.
func answerOnce(ctx context.Context, opts *locateOptions) (_ *job.AnswerSummary, err error) {
	g := opts.g
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	spec, err := answerSpecWithKeys(opts)
	if err != nil {
		return nil, err
	}
	if spec.DryRun {
		// The dry run reads no readings (stores.RunAnswer); a path that
		// cannot be opened is still named now, not at the charged run.
		if err := inputfiles.CheckReadings(opts.privateAnswer.values); err != nil {
			return nil, err
		}
	}
	spec.RunID = job.NewRunID()
	if spec.Epoch == "" {
		spec.Epoch = job.NewRunID()
	}
	// The ledger alone may be in the database.
	opt := storesOptions(g, after, stores.Options{Neo4j: spec.Neo4j || g.cfg.Privacy.Ledger == "neo4j",
		CheckProjection: spec.Neo4j, Ledger: ledgerMode(spec.DryRun)})
	env := runEnv(g, after)
	c := locateCommunities(opts)
	c.Store = spec.Store                   // Leiden's partition kept where plan keeps its own
	defer addInitHint(&g.cfg.Config, &err) // the ledger is opened from here on
	st, err := stores.Open(ctx, g.cfg, opt)
	if err != nil {
		return nil, err
	}
	defer st.Close(after.Context())
	return st.RunAnswer(ctx, *spec, c, inputfiles.AnswerReadingsFrom(opts.stdin, opts.privateAnswer.values, g.cfg.Input.Header), env)
}

// answerSpecWithKeys is checkPrivateAnswer's spec with its keys read
// (jobfiles.ReadAnswerKeys: the noise key, and for --answer-cache the
// ledger key): what answerOnce runs, and what serve reads before its
// first slot so that a bad key fails then.
func answerSpecWithKeys(opts *locateOptions) (*job.AnswerSpec, error) {
	spec, err := checkPrivateAnswer(opts)
	if err != nil {
		return nil, err
	}
	if err := jobfiles.ReadAnswerKeys(&opts.g.cfg.Config, spec); err != nil {
		return nil, err
	}
	if spec.CachePath == "" { // --answer-cache names the one file; else the store
		if spec.Store, err = workStore(opts.g, opts.privateAnswer.cacheDir); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

// checkPrivateAnswer validates the flags of locate --private-answer and
// turns them into the job's spec (answerSpec). It reads nothing: the
// keys are not read yet (answerSpecWithKeys), and the epoch is the
// configured one, "" when none is (answerOnce names one, serve each
// slot's).
func checkPrivateAnswer(opts *locateOptions) (*job.AnswerSpec, error) {
	cfg := &opts.g.cfg.Config
	o := &opts.privateAnswer
	if opts.graph == "" {
		return nil, graphRequired()
	}
	in := job.AnswerInputs{Released: opts.released != "" || opts.releasedProperty != "" || opts.releaseRun != "", Values: o.values,
		ValueProperty: cfg.Projection.ValueProperty, Neo4j: opts.graph == stores.Neo4jSpec, PerNode: opts.out != "" || opts.plot != "", Sources: cfg.Recovery.Sources}
	if err := in.Check(); err != nil {
		return nil, err
	}
	if err := checkForecastTrials(opts.forecastTrials); err != nil {
		return nil, err
	}
	if err := checkCommunities(opts, newLocateInputs(opts.graph, opts.communities)); err != nil {
		return nil, err
	}
	spec := answerSpec(opts)
	if err := spec.Check(); err != nil {
		return nil, err
	}
	return spec, nil
}

// answerSpec is the job's spec of locate --private-answer's flags and
// configuration, unchecked and its keys not yet read.
func answerSpec(opts *locateOptions) *job.AnswerSpec {
	cfg := &opts.g.cfg.Config
	o := &opts.privateAnswer
	return &job.AnswerSpec{Graph: opts.graph, Communities: opts.communities, Neo4j: opts.graph == stores.Neo4jSpec,
		Database: cfg.Neo4j.Database, Projection: cfg.Neo4jProjection(), Scope: cfg.Privacy.Scope, Epoch: cfg.Privacy.Epoch,
		Tau: cfg.Privacy.Tau, Alpha: cfg.Privacy.Alpha, Epsilon: cfg.Privacy.Epsilon, Delta: cfg.Privacy.Delta, Cap: o.cap,
		Estimator: cfg.Recovery.Estimator, Seed: uint64(cfg.Write.RandomSeed),
		ForecastTrials: opts.forecastTrials, Lease: connector.DefaultLease, DryRun: opts.dryRun,
		FitTolerance: o.fitTolerance, SensorNoise: o.model.noise.Nu, SensorNoiseRMS: o.model.noise.RMS, MinSourceMass: o.model.noise.MinSourceMass,
		Stated: o.model.stated, FitToleranceGiven: o.model.fitTolerance, OnMismatchGiven: o.model.onMismatch, Diagnose: o.diagnose, OnMismatch: o.onMismatch, CachePath: o.cache, Software: buildinfo.Read().String(), Memo: o.memo}
}
