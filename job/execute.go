package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// pollInterval is how often a release waiting for another live run of
// its scope looks again.
const pollInterval = 500 * time.Millisecond

// Execute carries out the plan p. On Neo4j it claims the epoch first: a
// fresh run claims its output properties and the scope and starts its run
// record ("running", with a lease); an epoch that a run published before
// is re-published from its stored values (Resume), or found done, or
// refused (see NextReleaseStep). A fresh release then charges the ledger and draws
// (graphcloak.Release: the charge before any noise), commits the release
// file, and publishes: the record gets the public release metadata and
// the values' digest, the values are stored durably, written to the nodes
// bound to the run, and the run is marked succeeded last. Whatever fails
// after the claim is recorded on the run (within env.Bookkeeping's one
// deadline). The summary is returned even with an error.
func Execute(ctx context.Context, p *ReleasePlan) (sum *ReleaseSummary, err error) {
	sum, env := p.Summary, &p.env
	if p.Spec.DryRun {
		return sum, errors.New("job: a dry run's plan is printed, never executed")
	}
	if env.Ledger != nil {
		defer func() { noteBalance(env.bookkeeping(ctx), env.Ledger, sum) }()
	}
	if p.Done {
		return sum, nil
	}
	var run Run
	if env.Backend != nil {
		var prev *connector.RunRecord
		if run, prev, err = p.claimOrRepublish(ctx); err != nil || prev != nil {
			return sum, err
		}
		sum.RunID = run.Record().RunID
		defer func() { recordFailure(env.bookkeeping(ctx), env.logger(), run, err) }()
		if p.Input == nil && p.Step == Wait {
			// Planned to wait for the run that had charged the epoch: it
			// ended without publishing (this run holds the scope now).
			if err := p.afterHolder(ctx); err != nil {
				return sum, err
			}
		}
	}
	if p.Input == nil {
		// Planned as a re-publication, fresh now: the run records went
		// back, which no run does; plan again rather than guess.
		return sum, fmt.Errorf("job: epoch %q was planned as %v and is fresh now: re-run", sum.Epoch, p.Step)
	}
	return sum, p.drawAndPublish(ctx, run)
}

// claimOrRepublish claims the epoch (claim) or re-publishes the earlier
// run claim returns (prev non-nil then, with republish's error): an
// earlier run found live again when taken over (its heartbeat renewed the
// lease) is waited for like any live holder, within the same ReleaseSpec.Wait.
func (p *ReleasePlan) claimOrRepublish(ctx context.Context) (Run, *connector.RunRecord, error) {
	env := &p.env
	deadline := env.now().Add(p.Spec.Wait)
	p.waitUntil = deadline
	for {
		run, prev, err := p.claim(ctx, deadline)
		if err != nil || prev == nil {
			return run, nil, err
		}
		err = p.republish(ctx, prev)
		if !errors.As(err, new(*connector.ScopeBusyError)) || env.now().After(deadline) {
			return nil, prev, err
		}
		if err := env.sleep(ctx, pollInterval); err != nil {
			return nil, prev, err
		}
	}
}

// claim starts this release's run record, which claims the scope, or
// returns the earlier run of the epoch to re-publish. While another live
// run holds the scope or is publishing this epoch it waits (until
// deadline: ReleaseSpec.Wait), so two runs of one slot started together end with
// one release and one no-op — also when the other run has charged the
// epoch already: its outcome is this run's (published: nothing to do;
// stored: resumed; ended without storing: charged, afterHolder).
func (p *ReleasePlan) claim(ctx context.Context, deadline time.Time) (Run, *connector.RunRecord, error) {
	s, env, b := &p.Spec, &p.env, p.env.Backend
	waiting, raced := "", false
	for {
		var busy error
		prev, err := b.FindRelease(ctx, s.Scope, s.epoch())
		if err != nil {
			return nil, nil, err
		}
		switch NextReleaseStep(prev, s.WriteProperty, env.now()) {
		case Wait:
			busy = &connector.ScopeBusyError{Scope: s.Scope, Holder: prev.RunID, Until: prev.LeaseExpiresAt}
		case Fresh:
			run, err := p.start(p.lockWait(ctx))
			if lw := (*connector.LockWaitError)(nil); errors.As(err, &lw) {
				return nil, nil, p.lockedOut(ctx, lw)
			}
			if errors.As(err, new(*connector.EpochPublishedError)) && !raced {
				raced = true
				continue // published since FindRelease looked: re-publish it
			}
			if !errors.As(err, new(*connector.ScopeBusyError)) {
				return run, nil, err
			}
			busy = err
		default: // published before: republish decides (NextReleaseStep)
			return nil, prev, nil
		}
		var sb *connector.ScopeBusyError
		errors.As(busy, &sb)
		ofEpoch := p.holder != nil && p.holder.RunID == sb.Holder || prev != nil && prev.RunID == sb.Holder
		if env.now().After(deadline) {
			if ofEpoch { // it charged this epoch, or may: the re-run costs nothing more
				return nil, nil, errkind.Errorf("%w: gave up after %s %v; it is publishing epoch %q: re-run with the same %s once it ends (no new charge)",
					busy, ParamWait, s.Wait, s.epoch(), ParamEpoch)
			}
			return nil, nil, errkind.Errorf("%w: gave up after %s %v; re-run once it ends", busy, ParamWait, s.Wait)
		}
		if waiting != sb.Holder {
			waiting = sb.Holder
			msg := "waiting for another release of the scope to end"
			if ofEpoch {
				msg = "waiting for the release of this epoch by another run to end"
			}
			env.logger().Info(msg, "scope", sb.Scope, "holder", sb.Holder, "epoch", s.epoch())
		}
		if err := env.sleep(ctx, pollInterval); err != nil {
			return nil, nil, err
		}
	}
}

// lockWait bounds the lock-taking steps of a release that waits for
// another run (claim: its outputs, its run record, the scope; resume: the
// run it takes over) by what is left of its --wait, at least
// connector.MinLockWait: a run whose record another process keeps locked
// — paused inside one of its transactions, until the server ends it at
// that run's transaction timeout — cannot hold this one past its wait
// (lockedOut). Outside claimOrRepublish (no wait started) ctx is
// returned as it is.
func (p *ReleasePlan) lockWait(ctx context.Context) context.Context {
	if p.waitUntil.IsZero() {
		return ctx
	}
	return connector.WithLockWait(ctx, p.waitUntil.Sub(p.env.now()))
}

// lockedOut is the error of a release whose lock-taking step lw waited
// out its --wait (lockWait). It reads the run of its epoch again (a read
// waits for no lock): still "running", its lease expired, it is the
// holder whose own transaction keeps its record locked — it may still
// publish: *HolderStalledError, busy, never a charged refusal; running
// with its lease renewed, it is a holder that outlasted --wait like any
// other. Otherwise the lock was another transaction's on the scope's
// records (*HolderStalledError without a holder). A server that does not
// answer that read either gives lw itself (unreachable).
func (p *ReleasePlan) lockedOut(ctx context.Context, lw *connector.LockWaitError) error {
	s, env := &p.Spec, &p.env
	rctx, cancel := context.WithTimeout(ctx, holderCheckTimeout)
	prev, err := env.Backend.FindRelease(rctx, s.Scope, s.epoch())
	cancel()
	if err != nil {
		return lw
	}
	env.logger().Info("gave up waiting for a lock", "scope", s.Scope, "epoch", s.epoch(), "error", lw)
	e := &HolderStalledError{Scope: s.Scope, Epoch: s.epoch(), Wait: s.Wait, Err: lw}
	if prev == nil || prev.Status != connector.StatusRunning || prev.RunID == s.RunID {
		return e
	}
	if prev.LeaseExpiresAt.After(env.now()) {
		return errkind.Errorf("%w: gave up after %s %v; it is publishing epoch %q: re-run with the same %s once it ends (no new charge)",
			&connector.ScopeBusyError{Scope: s.Scope, Holder: prev.RunID, Until: prev.LeaseExpiresAt}, ParamWait, s.Wait, s.epoch(), ParamEpoch)
	}
	e.Holder = prev
	e.Charged = p.holder != nil && p.holder.RunID == prev.RunID || prev.ReleaseID != ""
	return e
}

// holderCheckTimeout bounds lockedOut's read of the epoch's run: at once
// on a server that answers.
const holderCheckTimeout = 5 * time.Second

// start claims the release's outputs — its write property and the run
// ids beside it belong to releases: refused (bad input) when another kind of
// output or an input owns them — and writes its run record ("running",
// with a lease).
func (p *ReleasePlan) start(ctx context.Context) (Run, error) {
	s, b := &p.Spec, p.env.Backend
	if err := b.ClaimOutputs(ctx, s.RunID, "release", s.claims()); err != nil {
		return nil, err
	}
	return b.StartRun(ctx, s.runRecord(), s.Lease)
}

// drawAndPublish charges the ledger and draws (draw), then commits the
// release file and/or publishes to the database. A file release of an
// epoch already charged is a no-op when its file is there.
func (p *ReleasePlan) drawAndPublish(ctx context.Context, run Run) error {
	sum, env := p.Summary, &p.env
	rel, err := p.draw(ctx)
	if err == nil {
		noteBalance(ctx, env.Ledger, sum) // the run record keeps the budget left
	}
	if errors.Is(err, privacy.ErrAlreadyCharged) {
		if env.File != nil {
			return p.alreadyPublishedFile(err)
		}
		return &ChargedError{Epoch: sum.Epoch, Err: fmt.Errorf("no run stored its values: %w", err)}
	}
	if err != nil {
		return err
	}
	if env.File != nil {
		if err := env.File.pending.Commit(rel); err != nil {
			return &ChargedError{Epoch: sum.Epoch, Err: err}
		}
		sum.Out = env.File.Path()
	}
	if run != nil {
		return p.publish(ctx, run, rel)
	}
	return nil
}

// draw charges the ledger and draws the noise (graphcloak.Release), then
// clears the raw readings and records the release in the summary.
func (p *ReleasePlan) draw(ctx context.Context) (*privacy.Released, error) {
	s, env, in := &p.Spec, &p.env, p.Input
	var check func(context.Context, privacy.ReleaseCalibration) error
	if s.RefuseAtChance {
		check = p.refuseAtChance
	}
	p.sayDelta2Estimate(in.Graph, s.Tau+s.Smooth)
	res, err := graphcloak.Release(ctx, graphcloak.ReleaseRequest{
		Graph: in.Graph, Values: in.Readings, Tau: s.Tau, Alpha: s.Alpha,
		Epsilon: s.Epsilon, Delta: s.Delta, Mechanism: s.Mechanism, Noise: s.Noise,
		Ledger: env.Ledger, Scope: s.Scope, Epoch: s.epoch(),
		Sensitivity: p.Sensitivity, SensitivityOptions: sensitivity.Options{Progress: env.progress("Δ2"), TimeBudget: s.TimeBudget},
		Smooth: s.Smooth, Check: check,
	})
	spread := readingSpread(in.Readings)
	clear(in.Readings)
	if err != nil {
		return nil, err
	}
	res.Released.Meta.ToolVersion = s.Software
	if c := s.cache(in.Graph, s.Tau+s.Smooth); c != nil && p.Sensitivity == nil {
		s.keepSensitivity(env.logger(), c, in.Graph, res.Sensitivity, s.Tau+s.Smooth) // Δ2 was computed at τ+τ′
	}
	noteReleased(env.logger(), p.Summary, res, spread)
	if err := noteExactNode(p.Summary, s.Alpha, s.SourceMass); err != nil {
		// The values are drawn and charged: say so, do not lose them.
		env.logger().Warn("the exact node's privacy could not be computed", "err", err)
	}
	return res.Released, nil
}

// publish records the release's numbers in the run record and publishes
// rel, in the order that makes a crash recoverable: the public release
// metadata and the values' digest on the record, the values stored, then
// written to the nodes bound to the run, succeeded last. A failure before
// the values are stored leaves a charged epoch that cannot be completed
// (*ChargedError; *LeaseLostAfterChargeError when the run was taken for dead
// meanwhile); after, re-running with the same epoch finishes the write
// without a new charge.
func (p *ReleasePlan) publish(ctx context.Context, run Run, rel *privacy.Released) error {
	sum, b := p.Summary, p.env.Backend
	rec := run.Record()
	rec.Sigma, rec.Delta2, rec.Rho = sum.Sigma, sum.Delta2, sum.Rho
	rec.NodeCount, rec.RelationshipCount, rec.ComputeMillis = sum.NodeCount, sum.RelationshipCount, sum.ComputeMillis
	rec.Extra = map[string]any{"sensitivityMethod": sum.SensitivityMethod, "delta2Exact": sum.Delta2Exact,
		"mechanism": sum.Mechanism, "keyed": sum.Keyed}
	if sum.RhoSpent > 0 { // the ledger was read after this run's charge
		rec.Extra["rhoRemaining"] = sum.RhoRemaining
	}
	st, err := p.store(ctx, run, rel)
	if err == nil {
		st, err = b.WriteValues(ctx, run, rel.Keys, rel.Values, p.env.progress("write-back"))
	}
	if err == nil {
		rec.NodePropertiesWritten, rec.WriteMillis = st.NodePropertiesWritten, st.WriteMillis
		err = run.Succeed(ctx) // last
	}
	var notStored *NotStoredError
	var lost *connector.LeaseLostError
	if errors.As(err, &notStored) && errors.As(notStored.Err, &lost) {
		return &LeaseLostAfterChargeError{Epoch: sum.Epoch, Lost: lost} // taken for dead before it stored its values
	}
	if errors.As(err, &notStored) {
		return &ChargedError{Epoch: sum.Epoch, Err: notStored.Err}
	}
	if err != nil {
		return errkind.Errorf("%w (the released values are stored: re-run with %s %s to finish publishing them, without a new charge)", err, ParamEpoch, sum.Epoch)
	}
	sum.WriteProperty, sum.NodePropertiesWritten, sum.WriteMillis = rec.WriteProperty, st.NodePropertiesWritten, st.WriteMillis
	p.env.logger().Info("written", "runId", rec.RunID, "nodePropertiesWritten", st.NodePropertiesWritten, "writeMillis", st.WriteMillis)
	return nil
}

// store puts the public release metadata and the values' digest on the
// run record, then stores the values (a resumed run has them already).
func (p *ReleasePlan) store(ctx context.Context, run Run, rel *privacy.Released) (connector.WriteStats, error) {
	rec := run.Record()
	if rec.ValuesStored {
		return connector.WriteStats{}, nil
	}
	meta, err := json.Marshal(rel.Meta) // public: what unmask needs to regenerate keyed noise
	if err != nil {
		return connector.WriteStats{}, &NotStoredError{err}
	}
	rec.ReleaseID, rec.ReleaseMeta, rec.ValuesDigest = rel.Meta.ReleaseID, string(meta), rel.Digest()
	if err := run.Update(ctx); err != nil {
		return connector.WriteStats{}, &NotStoredError{err}
	}
	if err := p.env.Backend.StoreValues(ctx, run, rel.Keys, rel.Grid); err != nil {
		return connector.WriteStats{}, &NotStoredError{err}
	}
	rec.ValuesStored = true
	return connector.WriteStats{}, nil
}

// republish handles a release of an epoch that a run already charged:
// succeeded → nothing to do; failed, interrupted or abandoned
// with stored values → resume that run and write exactly its values (no
// charge, no draw); anything else cannot be completed without a new
// charge.
func (p *ReleasePlan) republish(ctx context.Context, prev *connector.RunRecord) error {
	sum, env := p.Summary, &p.env
	step := NextReleaseStep(prev, p.Spec.WriteProperty, env.now())
	if err := p.earlierRun(prev, step); err != nil || step == AlreadyPublished {
		return err
	}
	run, rel, err := p.resume(ctx, prev)
	var busy *connector.RunStateError
	var notStored *NotStoredError
	switch {
	case errors.As(err, &busy) && busy.Status == connector.StatusRunning:
		// Live again (its heartbeat renewed the lease): wait for it
		// (claimOrRepublish), busy past ReleaseSpec.Wait — never charged.
		return errkind.Errorf("%w: run %s may still be publishing epoch %q; re-run with the same %s once it ends to finish it (no new charge)",
			&connector.ScopeBusyError{Scope: sum.Scope, Holder: prev.RunID, Until: prev.LeaseExpiresAt}, prev.RunID, sum.Epoch, ParamEpoch)
	case errors.As(err, &notStored):
		return &ChargedError{Epoch: sum.Epoch, Err: notStored.Err}
	case err != nil:
		return err
	}
	env.logger().Info("resuming the publication of a charged epoch (no new charge, no new noise)", "runId", prev.RunID,
		"epoch", sum.Epoch, "attempt", run.Record().Attempts)
	sum.Resumed = true
	sum.Mechanism, sum.Keyed = rel.Meta.Mechanism, rel.Meta.Keyed
	if err := p.publish(ctx, run, rel); err != nil {
		recordFailure(env.bookkeeping(ctx), env.logger(), run, err)
		return err
	}
	return nil
}

// earlierRun takes into the summary what prev, the run that charged the
// epoch, released, and refuses the steps that cannot publish it: another
// write property (bad input), values overwritten (charged). Execute acts on
// the other steps; a dry run only reports them.
func (p *ReleasePlan) earlierRun(prev *connector.RunRecord, step ReleaseStep) error {
	s, sum, env := &p.Spec, p.Summary, &p.env
	sum.RunID, sum.Sigma, sum.Rho, sum.Delta2, sum.ReleaseID = prev.RunID, prev.Sigma, prev.Rho, prev.Delta2, prev.ReleaseID
	sum.WriteProperty, sum.NodeCount, sum.RelationshipCount = prev.WriteProperty, prev.NodeCount, prev.RelationshipCount
	sum.Mechanism, _ = prev.Extra["mechanism"].(string)
	sum.Delta2Exact, _ = prev.Extra["delta2Exact"].(bool)
	sum.SensitivityMethod, _ = prev.Extra["sensitivityMethod"].(string)
	switch step {
	case OtherProperty:
		return errkind.Inputf("epoch %q of scope %q was released by run %s to %q, not %q: use a new %s (a new charge) or %s %s",
			sum.Epoch, sum.Scope, prev.RunID, prev.WriteProperty, s.WriteProperty, ParamEpoch, ParamWriteProperty, prev.WriteProperty)
	case AlreadyPublished:
		sum.AlreadyPublished = true
		sum.NodePropertiesWritten = 0
		if !s.DryRun {
			env.logger().Info("epoch already published: nothing to do", "runId", prev.RunID, "epoch", sum.Epoch)
		}
	case Overwritten:
		return &ChargedError{Epoch: sum.Epoch, Err: fmt.Errorf("epoch %q was published by run %s and then overwritten by run %s", sum.Epoch, prev.RunID, prev.SupersededBy)}
	}
	return nil
}

// resume takes over the earlier run prev of a charged epoch and returns
// it with the release it stored: the same values, no new charge, no new
// noise.
func (p *ReleasePlan) resume(ctx context.Context, prev *connector.RunRecord) (Run, *privacy.Released, error) {
	b := p.env.Backend
	run, err := b.ResumeRun(p.lockWait(ctx), prev, p.Spec.Lease)
	if lw := (*connector.LockWaitError)(nil); errors.As(err, &lw) {
		return nil, nil, p.lockedOut(ctx, lw)
	}
	if err != nil {
		return nil, nil, err
	}
	rel, err := storedRelease(ctx, b, run)
	if err != nil {
		// Should recording the failure fail too, the run's lease expires
		// and the next run marks it abandoned.
		recordFailure(p.env.bookkeeping(ctx), p.env.logger(), run, err)
		return nil, nil, err
	}
	return run, rel, nil
}

// storedRelease rebuilds the release run stored: its metadata from the
// record, its grid values from the store.
func storedRelease(ctx context.Context, b Backend, run Run) (*privacy.Released, error) {
	rec := run.Record()
	var meta privacy.ReleaseMeta
	if err := json.Unmarshal([]byte(rec.ReleaseMeta), &meta); err != nil {
		return nil, &NotStoredError{fmt.Errorf("run %s: release metadata unreadable: %v", rec.RunID, err)}
	}
	keys, grid, err := b.LoadValues(ctx, run)
	if err != nil {
		return nil, &NotStoredError{err}
	}
	rel := &privacy.Released{Keys: keys, Grid: grid, Values: make([]float64, len(grid)), Meta: meta}
	for i, r := range grid {
		rel.Values[i] = math.Ldexp(float64(r), -meta.GridExponent)
	}
	return rel, nil
}

// recordFailure marks run failed (or interrupted) with err, when there is
// one; a failure to record it is logged (the lease then expires and the
// next run marks the run abandoned).
func recordFailure(ctx context.Context, log *slog.Logger, run Run, err error) {
	if err == nil || run == nil {
		return
	}
	if ferr := run.Fail(ctx, err); ferr != nil && log != nil {
		log.Warn("could not record the failed run", "runId", run.Record().RunID, "error", ferr)
	}
}

// noteBalance records the scope's spend after the run in sum (when the
// ledger answers).
func noteBalance(ctx context.Context, ledger privacy.Ledger, sum *ReleaseSummary) {
	if b, err := ledger.Balance(ctx, sum.Scope); err == nil && len(b) == 1 {
		sum.RhoSpent, sum.RhoRemaining = b[0].RhoSpent, b[0].RhoRemaining
	}
}

// noteReleased records the release's numbers in the summary and the log,
// warning when σ is negligible next to the readings' spread.
func noteReleased(log *slog.Logger, sum *ReleaseSummary, res *graphcloak.ReleaseResult, spread float64) {
	rel := res.Released
	if rel.Meta.Sigma < 1e-6*spread {
		log.Warn("σ is below 1e-6 of the readings' spread: the noise protects almost nothing unless the readings are exp(−τL)f0 for this τ and α is the reading mass of one protected unit (see the release's documentation)",
			"sigma", rel.Meta.Sigma)
	}
	sum.Sigma, sum.Rho, sum.Mechanism = rel.Meta.Sigma, rel.Meta.Rho, rel.Meta.Mechanism
	sum.ReleaseID = rel.Meta.ReleaseID
	sum.Delta2, sum.Delta2Exact, sum.SensitivityMethod = res.Sensitivity.Delta2, res.Sensitivity.Exact, res.Sensitivity.Method
	if s := res.Sensitivity; !s.Exact {
		// Still private (σ is calibrated to a proven upper bound), but the
		// operator should know the noise may be far larger than needed.
		log.Warn("Δ2 is a certified upper bound, not the exact value: the release is private but may be noisier than the exact Δ2 needs; "+
			"compute it once without a time budget, save it as a sensitivity certificate and release with that certificate",
			"delta2", s.Delta2, "provenLowerBound", s.Delta2-s.Slack, "method", s.Method)
	}
	sum.ComputeMillis = res.SensitivityMillis + res.ReleaseMillis
	log.Info("released", "nodeCount", rel.Meta.N, "delta2", sum.Delta2, "sigma", sum.Sigma, "rho", sum.Rho,
		"scope", sum.Scope, "epoch", sum.Epoch, "releaseId", rel.Meta.ReleaseID, "keyed", sum.Keyed)
}

// readingSpread is max − min of the readings (0 for one reading).
func readingSpread(y []float64) float64 {
	if len(y) == 0 {
		return 0
	}
	lo, hi := y[0], y[0]
	for _, v := range y {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return hi - lo
}

// LongStep is how long a step is modelled to run before its estimate is
// printed (issue 61: every step that may take more than ~10 s): half of
// that, as a step modelled at 5 s may take 10 within the models' 2×.
const LongStep = 5 * time.Second

// sayDelta2Estimate tells (env.Say) the modelled time of the Δ2 a release
// is about to compute at τ on g (sayDelta2Model); with Δ2 given, nothing.
func (p *ReleasePlan) sayDelta2Estimate(g *laplacian.Graph, tau float64) {
	if p.Sensitivity == nil {
		sayDelta2Model(p.env, g, tau, p.Spec.TimeBudget)
	}
}

// sayDelta2Model tells (env.Say) the modelled time of a Δ2 about to be
// computed at τ on g within budget (cost.Delta2Line) when it is over
// LongStep; below guessNodes nodes nothing (the model's own bound timings are
// not worth it).
func sayDelta2Model(env Env, g *laplacian.Graph, tau float64, budget time.Duration) {
	if env.Say == nil || g.N() < guessNodes {
		return
	}
	if line := cost.Delta2Line(g, tau, budget, LongStep.Seconds()); line != "" {
		env.Say(line)
	}
}
