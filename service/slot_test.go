package service

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// slotSteps records which steps a slot ran, with which epoch and release.
type slotSteps struct {
	calls      []string
	releaseErr error
}

func (r *slotSteps) slot(m *metrics.Metrics) *Slot {
	n := 0
	return &Slot{Epoch: func(t time.Time) string { return t.Format("2006-01-02T15:04Z") },
		NewRunID: func() string { n++; return "run-" + string(rune('0'+n)) }, Metrics: m, Scope: "s",
		ErrorAttrs: func(error) []any { return []any{"code", 1} },
		Release: func(_ context.Context, st Step) (*job.ReleaseSummary, error) {
			r.calls = append(r.calls, "release "+st.Epoch+" "+st.RunID)
			if r.releaseErr != nil {
				return nil, r.releaseErr
			}
			return &job.ReleaseSummary{RunID: st.RunID, NodeCount: 3, RhoSpent: 1, RhoRemaining: 2}, nil
		},
		LastRelease: func(_ context.Context, st Step) (string, error) {
			r.calls = append(r.calls, "last "+st.RunID)
			return "run-old", nil
		},
		Locate: func(_ context.Context, st Step, releaseRun string) (*job.LocateSummary, error) {
			r.calls = append(r.calls, "locate "+st.RunID+" on "+releaseRun)
			return &job.LocateSummary{NodeCount: 3}, nil
		},
	}
}

func metricsText(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// A slot releases under its epoch and locates on that release; when the
// budget refuses the release it locates on the scope's last release and
// counts the refusal; when the release fails otherwise it stops there.
func TestSlotSteps(t *testing.T) {
	slot := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	budget := privacy.NewBudgetError(privacy.Charge{Scope: "s", Rho: 1}, privacy.Balance{Scope: "s", RhoSpent: 3, RhoBudget: 3, Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6}})
	cases := []struct {
		name       string
		releaseErr error
		want       string
		metric     string
	}{
		{"released", nil, "release 2026-11-25T10:00Z run-1|locate run-2 on run-1", `graphcloak_runs_total{command="release",status="succeeded"} 1`},
		{"budget refused", budget, "release 2026-11-25T10:00Z run-1|last run-1|locate run-2 on run-old", `graphcloak_budget_refusals_total{scope="s"} 1`},
		{"refused at chance", &job.AtChanceError{Epsilon: 1, Forecasts: &job.Forecasts{PerNode: &forecast.Forecast{AtChance: true}}},
			"release 2026-11-25T10:00Z run-1|last run-1|locate run-2 on run-old", `graphcloak_runs_total{command="release",status="refused"} 1`},
		{"failed", errors.New("boom"), "release 2026-11-25T10:00Z run-1", `graphcloak_runs_total{command="release",status="failed"} 1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := metrics.New()
			r := &slotSteps{releaseErr: c.releaseErr}
			err := r.slot(m).Run(context.Background(), slot)
			if got := strings.Join(r.calls, "|"); got != c.want {
				t.Errorf("steps %q, want %q", got, c.want)
			}
			if (err != nil) != (c.name == "failed") {
				t.Errorf("Run: %v", err)
			}
			if text := metricsText(t, m); !strings.Contains(text, c.metric) {
				t.Errorf("metrics lack %s:\n%s", c.metric, text)
			}
		})
	}
}

// A private answer refused because the readings are outside the model is
// a WARN line, status "refused" and
// answer_outside_model_total{action="refused"}; one answered by
// randomized response is a WARN line and action "rr". Neither line says
// what was measured of the readings (the residuals would tell
// neighbouring sources apart).
func TestSlotAnswerOutsideModel(t *testing.T) {
	m := metrics.New()
	var logs strings.Builder
	mismatch := &recovery.MismatchError{Residual: 0.4, Tol: 0.01, TwoSourceResidual: 1e-9, Tau: 1}
	rr := false
	s := &Slot{Epoch: func(t time.Time) string { return t.Format("2006-01-02T15:04Z") }, NewRunID: func() string { return "run-a" },
		Metrics: m, Scope: "s", ErrorAttrs: func(error) []any { return []any{"code", 3} },
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Answer: func(context.Context, Step) (*job.AnswerSummary, error) {
			if !rr {
				return nil, mismatch
			}
			return &job.AnswerSummary{NodeCount: 3, Answer: &answer.Result{Community: "north", Mismatch: answer.AnsweredByRR,
				Audit: &answer.Audit{}}}, nil
		}}
	if err := s.Run(context.Background(), time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)); !errors.As(err, &mismatch) {
		t.Fatalf("slot: %v", err)
	}
	rr = true
	if err := s.Run(context.Background(), time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC)); err != nil {
		t.Fatalf("rr slot: %v", err)
	}
	text := metricsText(t, m)
	for _, want := range []string{`graphcloak_answer_outside_model_total{action="refused",scope="s"} 1`,
		`graphcloak_answer_outside_model_total{action="rr",scope="s"} 1`, `graphcloak_runs_total{command="answer",status="refused"} 1`} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 2 || strings.Contains(logs.String(), "0.4") ||
		strings.Contains(logs.String(), "two sources") || !strings.Contains(logs.String(), answer.AnsweredByRR) {
		t.Errorf("%d WARN lines, want 2 with the fixed texts and no measured number:\n%s", n, logs.String())
	}
}

// TestSlotVerdictSurfaces (issue 48, item 2): a slot whose localisation
// is noise is a WARN line with the reason and graphcloak_locate_noise 1 for
// its scope; an answer is an INFO line and 0. Before, 0 WARN lines and no
// gauge over flagged slots.
func TestSlotVerdictSurfaces(t *testing.T) {
	for _, noise := range []bool{true, false} {
		m := metrics.New()
		var logs strings.Builder
		r := &slotSteps{}
		s := r.slot(m)
		s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		s.Locate = func(context.Context, Step, string) (*job.LocateSummary, error) {
			sum := &job.LocateSummary{NodeCount: 3, NoiseDominated: noise, Report: &community.Report{Communities: []community.Ranked{{Name: "c1", Share: 0.6}}}}
			if noise {
				sum.NoiseReason = "noise: the evidence test cannot tell these readings from pure noise"
			}
			return sum, nil
		}
		if err := s.Run(context.Background(), time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		want, gauge := "level=INFO msg=\"slot located\"", `graphcloak_locate_noise{scope="s"} 0`
		if noise {
			want, gauge = "level=WARN msg=\"slot located: not a finding\"", `graphcloak_locate_noise{scope="s"} 1`
		}
		if !strings.Contains(logs.String(), want) || (noise && !strings.Contains(logs.String(), "pure noise")) {
			t.Errorf("noise %v: log lacks %s:\n%s", noise, want, logs.String())
		}
		if text := metricsText(t, m); !strings.Contains(text, gauge) {
			t.Errorf("noise %v: metrics lack %s", noise, gauge)
		}
	}
}
