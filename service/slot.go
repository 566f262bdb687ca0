package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// Slot is the work of one scheduled slot: release the slot's epoch, then
// locate on that release — on the scope's last published release when
// the budget refused this one — or, with Answer set, only the private
// answer. Steps supplies each step (planned and executed from its spec;
// tests supply their own); Slot orders them, gives each its own run id
// and logger, and reports to Metrics. Its Run method is a schedule.SlotFunc.
type Slot struct {
	// Epoch names a slot's epoch; NewRunID makes a step's run id.
	Epoch    func(slot time.Time) string
	NewRunID func() string
	Logger   *slog.Logger
	Metrics  *metrics.Metrics
	// Scope labels the budget metrics.
	Scope string
	// ErrorAttrs are what the command logs beside a step's error (how
	// it reports that error); nil logs the error alone.
	ErrorAttrs func(error) []any

	Release     func(ctx context.Context, st Step) (*job.ReleaseSummary, error)
	LastRelease func(ctx context.Context, st Step) (string, error)
	// Locate is nil for a release-only job.
	Locate func(ctx context.Context, st Step, releaseRun string) (*job.LocateSummary, error)
	// Answer, when set, is the slot's only step.
	Answer func(ctx context.Context, st Step) (*job.AnswerSummary, error)
}

// Step names one step of a slot: its epoch, its run id, and a logger
// that carries both.
type Step struct {
	Epoch, RunID string
	Logger       *slog.Logger
}

func (s *Slot) step(epoch string) Step {
	id := s.NewRunID()
	return Step{Epoch: epoch, RunID: id, Logger: s.logger().With("runId", id, "epoch", epoch)}
}

// errorAttrs are the log attributes of err: attrs, then ErrorAttrs(err).
func (s *Slot) errorAttrs(err error, attrs ...any) []any {
	if s.ErrorAttrs == nil {
		return attrs
	}
	return append(attrs, s.ErrorAttrs(err)...)
}

func (s *Slot) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// Run runs the slot starting at slot (a schedule.SlotFunc).
func (s *Slot) Run(ctx context.Context, slot time.Time) error {
	epoch := s.Epoch(slot)
	if s.Answer != nil {
		return s.answer(ctx, s.step(epoch))
	}
	rs := s.step(epoch)
	t0 := time.Now()
	sum, err := s.Release(ctx, rs)
	s.noteRelease(sum, err, time.Since(t0))
	var releaseRun string
	var atChance *job.AtChanceError
	switch {
	case errkind.Of(err) == errkind.Budget:
		rs.Logger.Error("release refused: the scope's budget is exhausted; locating on the last release", s.errorAttrs(err, "error", err)...)
		if releaseRun, err = s.LastRelease(ctx, rs); err != nil || releaseRun == "" {
			return err
		}
	case errors.As(err, &atChance):
		rs.Logger.Warn("release refused: forecast at chance, nothing charged; locating on the last release", s.errorAttrs(err, "error", err)...)
		if releaseRun, err = s.LastRelease(ctx, rs); err != nil || releaseRun == "" {
			return err
		}
	case err != nil:
		rs.Logger.Error("release failed", s.errorAttrs(err, "error", err)...)
		return err
	default:
		releaseRun = sum.RunID
		rs.Logger.Info("slot released", "releaseRun", releaseRun, "alreadyPublished", sum.AlreadyPublished,
			"resumed", sum.Resumed, "rhoRemaining", sum.RhoRemaining)
	}
	if s.Locate == nil {
		return nil
	}
	return s.locate(ctx, s.step(epoch), releaseRun)
}

// locate runs the localisation step on releaseRun.
func (s *Slot) locate(ctx context.Context, ls Step, releaseRun string) error {
	t0 := time.Now()
	loc, err := s.Locate(ctx, ls, releaseRun)
	nodes := 0
	if loc != nil {
		nodes = loc.NodeCount
	}
	s.Metrics.Run("locate", Status(err), time.Since(t0), nodes)
	switch {
	case err != nil:
		ls.Logger.Error("locate failed", s.errorAttrs(err, "error", err)...)
		return err
	case loc.Report != nil && len(loc.Report.Communities) > 0:
		top := loc.Report.Communities[0]
		s.Metrics.LocateVerdict(s.Scope, loc.NoiseDominated)
		if loc.NoiseDominated {
			ls.Logger.Warn("slot located: not a finding", "releaseRun", releaseRun, "topCommunity", top.Name, "probability", top.Share,
				"reason", loc.NoiseReason)
		} else {
			ls.Logger.Info("slot located", "releaseRun", releaseRun, "topCommunity", top.Name, "probability", top.Share)
		}
	default:
		ls.Logger.Info("slot located: no detectable source", "releaseRun", releaseRun)
	}
	return nil
}

// answer publishes the slot's private answer.
func (s *Slot) answer(ctx context.Context, st Step) error {
	t0 := time.Now()
	ans, err := s.Answer(ctx, st)
	nodes := 0
	if ans != nil {
		nodes = ans.NodeCount
	}
	s.Metrics.Run("answer", Status(err), time.Since(t0), nodes)
	var mm *recovery.MismatchError
	switch {
	case errors.As(err, &mm):
		s.Metrics.AnswerOutsideModel(s.Scope, "refused")
		st.Logger.Warn("private answer refused: the readings are outside the model, charged like an answer", s.errorAttrs(err)...)
		return err
	case err != nil:
		st.Logger.Error("private answer failed", s.errorAttrs(err, "error", err)...)
		return err
	case !ans.Answer.ExactSource && ans.Answer.Mismatch != answer.AnsweredNearest: // nearest publishes no decision
		s.Metrics.AnswerOutsideModel(s.Scope, "rr")
		st.Logger.Warn("slot answered by randomized response: the readings are outside the model", "reason", ans.Answer.Mismatch,
			"community", ans.Answer.Community, "delta", ans.Answer.Delta)
		return nil
	}
	st.Logger.Info("slot answered", "community", ans.Answer.Community, "delta", ans.Answer.Delta, "mechanism", ans.Answer.Calibration.Mechanism,
		"worstLoss", ans.Answer.Audit.WorstLoss, "classes", ans.Answer.Audit.Classes)
	return nil
}

// noteRelease records a release step in the metrics.
func (s *Slot) noteRelease(sum *job.ReleaseSummary, err error, d time.Duration) {
	m := s.Metrics
	var be *privacy.BudgetError
	switch {
	case errors.As(err, &be):
		m.BudgetRefused(s.Scope)
		m.Budget(s.Scope, be.Spent, be.Remaining)
	case err == nil:
		m.Budget(s.Scope, sum.RhoSpent, sum.RhoRemaining)
		if sum.SensitivityReused {
			m.SensitivityReused()
		}
	}
	nodes := 0
	if sum != nil {
		nodes = sum.NodeCount
	}
	m.Run("release", Status(err), d, nodes)
}

// Status names how a step ended, as its run record does ("refused" for a
// budget refusal, a release forecast at chance and an answer's readings
// outside the model).
func Status(err error) string {
	switch errkind.Of(err) {
	case errkind.Interrupted:
		return connector.StatusInterrupted
	case errkind.Budget:
		return "refused"
	}
	if atChance := (*job.AtChanceError)(nil); errors.As(err, &atChance) {
		return "refused"
	}
	if mm := (*recovery.MismatchError)(nil); errors.As(err, &mm) {
		return "refused"
	}
	if err != nil {
		return connector.StatusFailed
	}
	return connector.StatusSucceeded
}
