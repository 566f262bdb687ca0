package job

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// Env is what a release, a localisation or a private answer runs
// against, injected so that the same plan and execute functions serve
// the command, serve and the unit tests.
type Env struct {
	// Backend publishes to Neo4j (nil: no database publication).
	Backend Backend
	// Ledger is charged; a dry run's is opened read-only (privacy.
	// FileLedgerOptions.ReadOnly, connector.ReadLedger) and only read.
	// Nil: no affordability check (a library caller's estimate).
	Ledger privacy.Ledger
	// File is the locked release file (nil: none).
	File *File
	// Load reads the graph and the raw readings in node order (and, for
	// a private answer, the communities).
	Load func(ctx context.Context) (*Input, error)
	// LoadReleased reads a localisation's graph, the released values in
	// property ("" for a release file: none) as Input.Readings, and the
	// communities.
	LoadReleased func(ctx context.Context, property string) (*Input, error)
	// Output writes a localisation's local outputs (the per-node file,
	// the picture) before its results are published; nil: none.
	Output func(ctx context.Context, lr graphcloak.LocateRequest, res *graphcloak.LocateResult, sum *LocateSummary) error
	Logger *slog.Logger
	// Progress returns the progress callback of a step ("Δ2",
	// "write-back"); nil: none.
	Progress func(step string) func(done, total int)
	// Say, when set, prints a line about the work (an answer audit
	// resumed from its checkpoint).
	Say func(line string)
	// Phase, when set, is told a step without counts begins (community
	// detection); the returned func is called when it has ended.
	Phase func(label string) (end func())
	// PassStarted, when set, is told the modelled cost of the answer
	// audit's pass on a graph before the pass runs (an estimate to print).
	PassStarted func(g *laplacian.Graph, c recovery.PassCost)
	// Now is the clock (leases, waiting); nil: time.Now. Sleep waits
	// between looks at a busy scope; nil: a timer.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Bookkeeping is the context of everything done after the run's work
	// ended or failed (recording the failure, reading the balance): one
	// deadline shared by all of it. Nil: the run's context without its
	// cancellation.
	Bookkeeping func() context.Context
	// ParamName is how the texts a run writes (a verdict's reason) name a
	// parameter: as the caller's user gives it. Nil: the library's own
	// names (errkind.Param).
	ParamName func(errkind.Param) string
}

// Input is a release's (or a private answer's) graph and its raw
// readings, one per node in graph index order. The readings are cleared
// once the noise is drawn. Partition and Names are an answer's
// communities (nil: Leiden).
type Input struct {
	Graph     *laplacian.Graph
	Readings  []float64
	Partition []int
	Names     []string
}

func (e *Env) logger() *slog.Logger {
	if e.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Logger
}

func (e *Env) paramName(p errkind.Param) string {
	if e.ParamName == nil {
		return string(p)
	}
	return e.ParamName(p)
}

func (e *Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

func (e *Env) progress(step string) func(done, total int) {
	if e.Progress == nil {
		return nil
	}
	return e.Progress(step)
}

// resumedPass tells of an answer audit resumed from its checkpoint
// (AnswerCache.ModelResumable), through say (nil: nobody).
func resumedPass(say func(string)) func(path, held string) {
	if say == nil {
		return nil
	}
	return func(path, held string) {
		say(fmt.Sprintf("resuming the answer audit from %s: %s already done", path, held))
	}
}

// phase is Env.Phase's, or a no-op.
func (e *Env) phase(label string) func() {
	if e.Phase == nil {
		return func() {}
	}
	return e.Phase(label)
}

func (e *Env) bookkeeping(ctx context.Context) context.Context {
	if e.Bookkeeping == nil {
		return context.WithoutCancel(ctx)
	}
	return e.Bookkeeping()
}

// ReleasePlan is a checked release: everything decided before anything is
// claimed, charged or drawn. A dry run prints it; Execute carries it out.
type ReleasePlan struct {
	Spec ReleaseSpec
	// Summary is the release as planned; Execute completes it.
	Summary *ReleaseSummary
	// Step is what the release of the epoch would do, as its run records
	// stood when planned (Fresh without a database).
	Step ReleaseStep
	// Done: nothing to execute — the release file already holds this
	// epoch (nothing to do, nothing charged).
	Done bool
	// Input is the graph and readings of a fresh release (nil otherwise).
	Input *Input
	// Sensitivity is Δ2 from the certificate or the cache, verified
	// against the graph; nil: Execute computes it (within TimeBudget).
	Sensitivity *sensitivity.Result
	// Fingerprint is the graph's (laplacian.Graph.Fingerprint).
	Fingerprint laplacian.Fingerprint

	env Env
	// part is the forecasts' partition (forecastPartition), made once.
	part []int
	// unitForecast is how long the dry run's unit-source forecast took
	// (the mass curve's estimate).
	unitForecast time.Duration
	// unitPoint is the dry run's unit-source forecast, the forecast by
	// source mass's 1-unit point (nil with a stated source mass).
	unitPoint *forecast.Forecast
	// began is when the dry run's estimate began (its estimate's "so far").
	began time.Time
	// priced says perTrial and perTrialHow are set (pricing).
	priced      bool
	perTrial    float64
	perTrialHow string
	// canon is the graph in key order the forecast partition is of.
	canon *laplacian.Graph
	// holder is the run that had charged the epoch, not stored its values
	// and was still running when planned (Step Wait, no Input); waited is
	// it once Execute holds the scope, that run having ended.
	holder, waited *connector.RunRecord
	// waitUntil is when Execute's wait for another run (ReleaseSpec.Wait)
	// ends: its lock-taking steps end by then too (lockWait).
	waitUntil time.Time
}

// forecastPartition is the partition the plan's forecasts score — the
// one the loader read (ReleaseSpec.Communities: the user's, as locate
// would read it), else Leiden with ForecastSeed, as locate detects
// communities by default — made once for the automatic smoothing's
// candidates and the dry run's forecast.
//
// The forecast runs on g in canonical (key) order, so that it does not
// depend on the order the graph was read in: forecastPartition returns
// that graph with its partition, computed there.
func (p *ReleasePlan) forecastPartition(g *laplacian.Graph) (*laplacian.Graph, []int, error) {
	if p.part == nil {
		cg, perm, err := canonicalGraph(g)
		if err != nil {
			return nil, nil, err
		}
		var part []int
		if in := p.Input; in != nil && in.Partition != nil && in.Graph == g {
			part = canonicalPartition(cg, in.Partition, perm)
		} else {
			end := p.env.phase(fmt.Sprintf("communities (leiden) on %d nodes", cg.N()))
			part, err = community.Leiden(cg, community.LeidenOptions{Seed: p.Spec.ForecastSeed})
			end()
		}
		if err != nil {
			return nil, nil, err
		}
		p.canon, p.part = cg, part
	}
	return p.canon, p.part, nil
}

// PlanRelease checks spec and everything a release depends on, in the
// order a release needs them and without writing anything: the release
// file (never overwritten), the epoch's earlier run (env.Backend), then
// for a fresh release the budget (env.Ledger: already charged, or not
// affordable, is refused before any expensive step), the graph and
// readings (env.Load), the Δ2 source (certificate or cache, verified
// against the graph) and, for a dry run, the cost, the σ the release
// would use and the utility forecast at that σ.
//
// A dry run takes the same steps, reading only: the release file at
// ReleaseSpec.Out (env.File is nil: nothing locked), FindRelease, the ledger's
// Charged and Balance (env.Ledger opened read-only). It is refused with
// the error the release would meet (over budget, already charged, an
// epoch published elsewhere), and otherwise its Summary says what the
// release would do (Step) and the scope's Balance it would charge from.
func PlanRelease(ctx context.Context, spec ReleaseSpec, env Env) (*ReleasePlan, error) {
	if err := spec.Check(); err != nil {
		return nil, err
	}
	p := &ReleasePlan{Spec: spec, env: env, Summary: &ReleaseSummary{Graph: spec.Graph, DryRun: spec.DryRun, ValuesFrom: spec.ValuesFrom,
		TimeBudgetSeconds: spec.TimeBudget.Seconds(), Epsilon: spec.Epsilon, Delta: spec.Delta, Keyed: spec.keyed(),
		Scope: spec.Scope, Ledger: spec.Ledger, Epoch: spec.epoch()}}
	if p.outPath() != "" {
		done, err := p.existingFile()
		if done || err != nil {
			p.Done = done
			p.noteStep()
			return p, err
		}
	}
	if env.Backend != nil {
		prev, err := env.Backend.FindRelease(ctx, spec.Scope, spec.epoch())
		if err != nil {
			return p, err
		}
		if p.Step = NextReleaseStep(prev, spec.WriteProperty, env.now()); p.Step != Fresh {
			if spec.DryRun { // what Execute would do with prev, said and not done
				p.noteStep()
				return p, p.earlierRun(prev, p.Step)
			}
			return p, nil // Execute re-publishes, waits or refuses
		}
	}
	if env.Ledger != nil {
		done, err := p.checkAffordable(ctx)
		if done || err != nil {
			p.Done = done
			p.noteStep()
			return p, err
		}
		if p.Step != Fresh { // charged by a run that may still publish it (chargedBy)
			p.noteStep()
			if spec.DryRun {
				return p, p.earlierRun(p.holder, p.Step)
			}
			return p, nil // Execute waits for it or re-publishes
		}
	}
	p.noteStep()
	if err := p.load(ctx); err != nil {
		return p, err
	}
	if spec.DryRun {
		return p, p.estimate(ctx)
	}
	return p, nil
}

// noteStep records a dry run's decision in its summary.
func (p *ReleasePlan) noteStep() {
	if !p.Spec.DryRun {
		return
	}
	p.Summary.Step = p.Step.String()
	if p.Done || p.Step == AlreadyPublished {
		p.Summary.Step = AlreadyPublished.String()
	}
}

// load reads the graph and readings and settles the Δ2 source.
func (p *ReleasePlan) load(ctx context.Context) error {
	in, err := p.env.Load(ctx)
	if err != nil {
		return err
	}
	p.Input = in
	g := in.Graph
	p.Fingerprint = g.Fingerprint()
	p.Summary.NodeCount, p.Summary.RelationshipCount = g.N(), g.NumEdges()
	if p.Spec.SmoothAuto { // settles Smooth and its Δ2
		return p.chooseSmooth(ctx, g)
	}
	p.Summary.Smooth = p.Spec.Smooth
	tau := p.Spec.Tau + p.Spec.Smooth // the released model's τ, at which Δ2 must hold
	if c := p.Spec.Certificate; c != nil {
		s, err := c.Verify(g, tau, p.Spec.Alpha)
		if err != nil {
			return errkind.Inputf("%s %s: %w", ParamCertificate, p.Spec.CertificatePath, err)
		}
		p.Sensitivity = &s
	}
	if c := p.Spec.cache(g, tau); c != nil {
		p.Sensitivity = p.Spec.cachedSensitivity(p.env.logger(), c, g, tau)
		p.Summary.SensitivityReused = p.Sensitivity != nil
	}
	return nil
}

// affordabilityMargin: the ρ a release charges is the target ρ of (ε, δ)
// less σ's rounding up on the noise grid (relative < 1e-5); the check
// before Δ2 refuses only what the charge would certainly refuse.
const affordabilityMargin = 1e-3

// checkAffordable runs, before any expensive step (Δ2), the checks the
// ledger would make when charging: the scope exists; a new epoch's ρ fits
// in what is left (else the budget error); an epoch already
// charged is a retry — to its own release file a no-op (done), elsewhere
// kind charged. ρ depends on (ε, δ) and the mechanism only, not on Δ2.
func (p *ReleasePlan) checkAffordable(ctx context.Context) (done bool, err error) {
	s := &p.Spec
	scope, epoch := s.Scope, s.epoch()
	if lookup, ok := p.env.Ledger.(privacy.ChargeLookup); ok {
		charged, err := lookup.Charged(ctx, scope, epoch)
		if err != nil {
			return false, err
		}
		if charged {
			cause := fmt.Errorf("scope %q release %q: %w", scope, epoch, privacy.ErrAlreadyCharged)
			gone := p.waited
			if gone == nil {
				if p.Step, p.holder, err = p.chargedBy(ctx); err != nil || p.Step != Fresh {
					return false, err
				}
				gone = p.holder
			}
			if gone != nil && p.outPath() == "" {
				return false, &ChargedError{Epoch: epoch, Err: &HolderGoneError{Holder: *gone, Err: cause}}
			}
			if p.outPath() != "" {
				err := p.alreadyPublishedFile(cause)
				return err == nil, err
			}
			return false, &ChargedError{Epoch: epoch, Err: fmt.Errorf("no run stored its values: %w", cause)}
		}
	}
	b, err := p.env.Ledger.Balance(ctx, scope)
	if err != nil || len(b) != 1 {
		return false, err
	}
	p.Summary.Balance = &b[0]
	if s.DryRun {
		p.Summary.RhoSpent, p.Summary.RhoRemaining = b[0].RhoSpent, b[0].RhoRemaining
	}
	cal, err := privacy.CalibrateRelease(1, s.Epsilon, s.Delta, 1, s.Mechanism)
	if err != nil {
		return false, errkind.Input(err)
	}
	if cal.Rho*(1-affordabilityMargin) > b[0].RhoRemaining {
		return false, privacy.NewBudgetError(privacy.Charge{Scope: scope, ReleaseID: epoch, Rho: cal.Rho}, b[0])
	}
	return false, nil
}

// chargedBy looks again for the run of the epoch when the ledger says it
// is charged and the plan found no run that published it: a run that
// charged it since FindRelease looked, or one still "running" — live, or
// with an expired lease that no run has marked abandoned yet, which may
// still store its values — is waited for (Wait: Execute's claim waits
// until it ends, and its StartRun marks an expired one abandoned, after
// which it can store nothing), and one that published meanwhile is
// re-published. Fresh (the caller refuses: charged) only when the run that
// charged the epoch has ended without storing its values.
func (p *ReleasePlan) chargedBy(ctx context.Context) (ReleaseStep, *connector.RunRecord, error) {
	b := p.env.Backend
	if b == nil {
		return Fresh, nil, nil
	}
	prev, err := b.FindRelease(ctx, p.Spec.Scope, p.Spec.epoch())
	if err != nil {
		return Fresh, nil, err
	}
	now := p.env.now()
	step := NextReleaseStep(prev, p.Spec.WriteProperty, now)
	if step == Fresh && prev != nil && prev.Status == connector.StatusRunning &&
		(!p.Spec.DryRun || prev.LeaseExpiresAt.After(now)) { // a dry run: the release would take it for dead
		step = Wait
	}
	return step, prev, nil
}

// afterHolder completes the plan of a release that waited for the run
// holding its charged epoch (PlanRelease: Wait, no input) and now holds
// the scope itself: that run ended without publishing. A charged epoch is
// refused (charged, *HolderGoneError: it can store nothing any more); an
// epoch it never charged is released afresh (the budget, the graph, Δ2).
func (p *ReleasePlan) afterHolder(ctx context.Context) error {
	p.waited, p.Step = p.holder, Fresh
	if p.env.Ledger != nil {
		done, err := p.checkAffordable(ctx)
		if err != nil || done {
			return err
		}
	}
	return p.load(ctx)
}

// estimate is the dry run: counts, method, memory and time, σ. Δ2 is
// computed exactly when the model says it takes under 10 s; otherwise the
// proven bound α√2 is shown (and σ for it, an upper bound).
func (p *ReleasePlan) estimate(ctx context.Context) error {
	s, g := &p.Spec, p.Input.Graph
	p.began = time.Now()
	tau := s.Tau + s.Smooth // the released model's τ
	req := graphcloak.EstimateRequest{Graph: g, Tau: tau, Alpha: s.Alpha, Epsilon: s.Epsilon, Delta: s.Delta,
		Mechanism: s.Mechanism, Sensitivity: p.Sensitivity}
	drop := func() {}
	if p.env.Say != nil && s.DryRun && s.ForecastTrials > 0 && g.NumEdges() > 0 && p.Sensitivity == nil {
		drop = p.holdDryRunGuess(g)
	}
	est, err := graphcloak.Estimate(req)
	drop() // the model's estimate is the better one, if the guess was not told yet
	if err != nil {
		return err
	}
	sum := p.Summary
	computes := req.Sensitivity == nil && (est.SecondsEstimate < 10 || g.NumEdges() == 0)
	if p.env.Say != nil && s.DryRun && s.ForecastTrials > 0 && g.NumEdges() > 0 {
		delta2 := 0.0
		if computes {
			delta2 = est.SecondsEstimate
		}
		p.sayDryRunEstimate(g, est, delta2)
	}
	if computes {
		// The release's own options, budget included, so that the dry run
		// shows the Δ2 and σ the release would use.
		d2, err := sensitivity.GraphContext(ctx, g, tau, s.Alpha,
			sensitivity.Options{Progress: p.env.progress("Δ2"), TimeBudget: s.TimeBudget})
		if err != nil {
			return err
		}
		req.Sensitivity = &d2
		sum.SensitivityMethod = d2.Method
	}
	if req.Sensitivity != nil {
		// Refused as the release would refuse it, with the same error:
		// Δ2 zero (no edges), uncertified, a τ too large for the noise
		// grid, readings off the grid.
		if _, err := graphcloak.PrecheckRelease(ctx, graphcloak.ReleaseRequest{Graph: g, Values: p.Input.Readings,
			Tau: s.Tau, Alpha: s.Alpha, Epsilon: s.Epsilon, Delta: s.Delta, Mechanism: s.Mechanism,
			Sensitivity: req.Sensitivity, SensitivityOptions: sensitivity.Options{TimeBudget: s.TimeBudget}, Smooth: s.Smooth}); err != nil {
			return err
		}
		if est, err = est.Recalibrate(req); err != nil {
			return err
		}
	}
	sum.Estimate = est
	sum.Delta2, sum.Delta2Exact, sum.Sigma, sum.Rho, sum.Mechanism = est.Delta2, est.Delta2Exact, est.Sigma, est.Rho, est.Mechanism
	if err := noteExactNode(sum, s.Alpha, s.SourceMass); err != nil {
		return err
	}
	if s.ForecastTrials > 0 && g.NumEdges() > 0 {
		if sum.Forecast, err = p.forecast(ctx, g, est.Sigma, est.SecondsEstimate); err != nil {
			return err
		}
		if err = p.massCurve(ctx, g, est.Sigma, est.SecondsEstimate, sum.Forecast); err != nil {
			return err
		}
		// RefuseAtChance refuses the release here, before the charge, on
		// the verdict the release would refuse on (ReleaseVerdict).
		if s.RefuseAtChance && sum.Forecast.Verdict.AtChance {
			return &AtChanceError{Epsilon: s.Epsilon, Forecasts: sum.Forecast}
		}
	}
	return err
}

// sleep waits d, or until ctx ends.
func (e *Env) sleep(ctx context.Context, d time.Duration) error {
	if e.Sleep != nil {
		return e.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
