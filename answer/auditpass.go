package answer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// AuditPass is one run of the answer audit's pass on a graph (graphcloak
// audit): the certificate kept at Cache, shared with the store of work's
// entry Store, resumed from the checkpoint beside Cache.Path, its cost
// said before it starts when it is long. Its zero callbacks say nothing.
type AuditPass struct {
	Graph *laplacian.Graph
	Tau   float64
	// Options are the certifier's (the fit, precision, sensor noise, a
	// shard); Run sets their Checkpoint and Progress.
	Options recovery.CertifierOptions
	// Cache is where the certificate (or, with Options.Shard, the part)
	// is written; Store, when non-nil, is the store of work's entry for
	// the same pass: a certificate either holds is copied to the other.
	Cache Cache
	Store *Cache
	// CheckpointEvery, when non-zero, is how often the running pass
	// appends to its checkpoint (negative: after every block of sources).
	CheckpointEvery time.Duration
	// Long: a pass modelled over Long is said (Say) before it starts.
	Long time.Duration
	// Say prints a line about the work; Logger takes the warnings;
	// Progress makes the pass's progress callback ("answer audit");
	// Estimated is told the pass's model before it runs.
	Say       func(line string)
	Logger    *slog.Logger
	Progress  func(stage string) func(done, total int)
	Estimated func(*WorkEstimate)
}

// Run runs the pass: a certificate that verifies at Cache (or at Store,
// copied to Cache) is reused; otherwise the pass resumes from the
// checkpoint, is estimated, runs (Certify) and, once it succeeds, the
// checkpoint is removed and the certificate copied to Store. The
// report's ResumedSources and Estimate are filled; its Graph and Shard
// are the caller's.
func (a AuditPass) Run(ctx context.Context) (AuditReport, error) {
	opt := a.Options
	copyVerified(ctx, a.Store, &a.Cache, a.Graph, a.Tau, opt) // a pass the store holds is Cache's
	// A certificate at Cache that verifies is reused (Certify): no
	// checkpoint and no estimate then.
	_, _, loadErr := a.Cache.Load(a.Graph, a.Tau, opt)
	reused := loadErr == nil && opt.Shard.N == 0
	cp, resumed, err := a.openCheckpoint(opt, reused)
	if err != nil {
		return AuditReport{}, err
	}
	opt.Checkpoint = cp
	est, estErr := a.passEstimate(opt, reused)
	// The first pass's line is passEstimate's; a later one (a sensor-noise
	// pass at its tolerance, the precise pass a loose one stopped for) is
	// said before it starts, with its estimate, on a progress of its own.
	opt.Progress, opt.Started = AuditPasses(a.Progress, nil, a.Say, a.Graph, a.Long)
	r, err := a.certify(ctx, opt, cp)
	if err != nil {
		return r, err
	}
	if a.Store != nil {
		copyVerified(ctx, &a.Cache, a.Store, a.Graph, a.Tau, opt) // Cache's pass is the store's too
	}
	r.ResumedSources = resumed
	if estErr == nil {
		r.Estimate = &est
	}
	return r, nil
}

// Estimate is what Run would take, computing and writing nothing: none
// when a certificate at Cache or Store verifies (unsharded: the run would
// reuse it), else the pass's cost model at the step rate measured on the
// graph (about 0.3 s), less what the checkpoint holds.
func (a AuditPass) Estimate() (AuditReport, error) {
	start, g, opt := time.Now(), a.Graph, a.Options
	for _, c := range []*Cache{&a.Cache, a.Store} {
		if c == nil || opt.Shard.N > 0 {
			continue
		}
		if _, _, err := c.Load(g, a.Tau, opt); err == nil { // the run would reuse it: no pass
			return AuditReport{NodeCount: g.N(), Tau: a.Tau, FitTolerance: opt.Tol, Save: c.Path, Reused: true,
				Millis: time.Since(start).Milliseconds(), Estimate: &WorkEstimate{Step: "answer audit", Nodes: g.N(), Edges: g.NumEdges()}, EstimateOnly: true}, nil
		}
	}
	cp, err := OpenCheckpoint(CheckpointPath(a.Cache.Path), g, a.Tau, opt, a.Cache)
	if err != nil {
		a.logger().Warn(err.Error())
	} else {
		opt.Checkpoint = cp
	}
	est, err := EstimateAudit(g, a.Tau, opt, nil, 0)
	if err != nil {
		return AuditReport{}, err
	}
	r := AuditReport{NodeCount: g.N(), Tau: a.Tau, FitTolerance: opt.Tol, Precise: opt.Precise,
		Save: a.Cache.Path, Millis: time.Since(start).Milliseconds(), Estimate: &est, EstimateOnly: true}
	if opt.Checkpoint != nil {
		r.ResumedSources = cp.Resumed()
	}
	return r, nil
}

func (a AuditPass) logger() *slog.Logger {
	if a.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.Logger
}

func (a AuditPass) say(line string) {
	if a.Say != nil {
		a.Say(line)
	}
}

// copyVerified writes the certificate at from to to when it verifies
// against g at τ and opt and the one at to does not (the store and the
// caller's file share one pass): the model restored from it, sealed and
// stamped as to's own (the store's files name their build). It reports
// whether it wrote.
func copyVerified(ctx context.Context, from, to *Cache, g *laplacian.Graph, tau float64, opt recovery.CertifierOptions) bool {
	if from == nil || to == nil || from.Path == to.Path {
		return false
	}
	if _, _, err := to.Load(g, tau, opt); err == nil {
		return false
	}
	if _, _, err := from.Load(g, tau, opt); err != nil {
		return false
	}
	m, err := from.Model(ctx, g, tau, make([]int, g.N()), nil, opt, slog.New(slog.DiscardHandler))
	return err == nil && to.Store(m) == nil
}

// openCheckpoint opens the checkpoint beside Cache (CheckpointPath),
// resuming it when it is of this pass and saying so, and warning when
// one is there but cannot be resumed (none is read when the certificate
// is reused). It returns the checkpoint and the sources it resumes.
func (a AuditPass) openCheckpoint(opt recovery.CertifierOptions, reused bool) (*Checkpoint, int, error) {
	cp, err := OpenCheckpoint(CheckpointPath(a.Cache.Path), a.Graph, a.Tau, opt, a.Cache)
	var refused *CheckpointRefusedError
	switch {
	case errors.As(err, &refused):
		if !reused {
			a.logger().Warn(err.Error())
		}
	case err != nil:
		return nil, 0, err
	}
	if a.CheckpointEvery != 0 {
		cp.Every = a.CheckpointEvery
	}
	if reused {
		return cp, 0, nil
	}
	if held := cp.Held(); held != "" {
		a.say(fmt.Sprintf("resuming the audit from %s: %s already done", cp.Path, held))
	}
	return cp, cp.Resumed(), nil
}

// passEstimate prices the pass (said when it is long), or says why there
// is no estimate: the certificate at Cache is reused.
func (a AuditPass) passEstimate(opt recovery.CertifierOptions, reused bool) (WorkEstimate, error) {
	if reused {
		return WorkEstimate{}, errors.New("answer: the certificate is reused")
	}
	est, err := EstimateAudit(a.Graph, a.Tau, opt, nil, a.Long)
	if err != nil {
		return est, err
	}
	if a.Estimated != nil {
		a.Estimated(&est) // the pass's own line, if any, prices with it
	}
	if est.Seconds > a.Long.Seconds() {
		a.say(est.String())
	}
	return est, nil
}

// certify runs the pass on its checkpoint cp (opt.Checkpoint): saved
// when the pass fails (an interrupted one says how to resume), removed
// when it succeeds.
func (a AuditPass) certify(ctx context.Context, opt recovery.CertifierOptions, cp *Checkpoint) (AuditReport, error) {
	r, err := Certify(ctx, a.Graph, a.Tau, opt, a.Cache)
	if err != nil {
		saveErr := cp.Save()
		switch {
		case saveErr != nil:
			a.logger().Warn("could not save the audit's checkpoint", "checkpoint", cp.Path, "error", saveErr)
		case ctx.Err() != nil && cp.Held() != "":
			a.say(fmt.Sprintf("audit interrupted: %s saved in %s; run the same command again to resume from there",
				cp.Held(), cp.Path))
		}
		return r, err
	}
	if err := cp.Remove(); err != nil {
		a.logger().Warn("could not remove the audit's checkpoint", "checkpoint", cp.Path, "error", err)
	}
	return r, nil
}
