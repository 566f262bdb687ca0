package service

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// memoryBackend is a Backend in memory: releases are charged to a real
// file ledger (so a refusal is the ledger's own BudgetError) and
// remembered in order; the last release is the newest remembered.
type memoryBackend struct {
	ledger   privacy.Ledger
	rho      float64 // charged per release
	released []string
	// what each call was given
	releases []job.ReleaseSpec
	readings []map[string]float64
	located  []locateCall
	answers  []job.AnswerSpec
	answered []map[string]float64
	lasts    int
}

type locateCall struct {
	releaseRun string
	spec       job.LocateSpec
	drawn      bool // env.Output set
}

func (b *memoryBackend) Release(ctx context.Context, spec job.ReleaseSpec, readings map[string]float64, env job.Env) (*job.ReleaseSummary, error) {
	b.releases, b.readings = append(b.releases, spec), append(b.readings, readings)
	if err := b.ledger.Charge(ctx, privacy.Charge{Scope: spec.Scope, ReleaseID: spec.RunID, Rho: b.rho}); err != nil {
		return nil, err
	}
	b.released = append(b.released, spec.RunID)
	return &job.ReleaseSummary{RunID: spec.RunID, NodeCount: len(readings)}, nil
}

func (b *memoryBackend) LastRelease(context.Context, *slog.Logger) (string, error) {
	b.lasts++
	if len(b.released) == 0 {
		return "", nil
	}
	return b.released[len(b.released)-1], nil
}

func (b *memoryBackend) Locate(_ context.Context, releaseRun string, spec job.LocateSpec, _ stores.Communities, env job.Env) (*job.LocateSummary, error) {
	b.located = append(b.located, locateCall{releaseRun, spec, env.Output != nil})
	return &job.LocateSummary{RunID: spec.RunID, NodeCount: 2}, nil
}

func (b *memoryBackend) Answer(_ context.Context, spec job.AnswerSpec, _ stores.Communities, readings func() (map[string]float64, error), _ job.Env) (*job.AnswerSummary, error) {
	b.answers = append(b.answers, spec)
	if readings == nil {
		return nil, errors.New("no readings")
	}
	r, err := readings()
	if err != nil {
		return nil, err
	}
	b.answered = append(b.answered, r)
	return &job.AnswerSummary{NodeCount: len(r), Answer: &answer.Result{ExactSource: true, Audit: &answer.Audit{}}}, nil
}

// recordingObserver records what the page is told.
type recordingObserver struct {
	located  []string // epoch releaseRun
	answered []string // epoch runID error
}

func (o *recordingObserver) Draw(context.Context, graphcloak.LocateRequest, *graphcloak.LocateResult, *job.LocateSummary) error {
	return nil
}
func (o *recordingObserver) Located(epoch, releaseRun string, _ *job.LocateSummary) {
	o.located = append(o.located, epoch+" "+releaseRun)
}
func (o *recordingObserver) Answered(epoch, runID string, _ *job.AnswerSummary, err error) {
	o.answered = append(o.answered, epoch+" "+runID+" "+errString(err))
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// newMemoryBackend has a scope "s" whose budget affords one release.
func newMemoryBackend(t *testing.T) *memoryBackend {
	t.Helper()
	l, err := privacy.CreateFileLedger(t.Context(), filepath.Join(t.TempDir(), "ledger.json"), privacy.Budget{Epsilon: 1, Delta: 1e-6}, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	bal, err := l.Balance(t.Context(), "s")
	if err != nil || len(bal) != 1 {
		t.Fatal(bal, err)
	}
	return &memoryBackend{ledger: l, rho: 0.6 * bal[0].RhoBudget}
}

func writeReadings(t *testing.T, path, csv string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Steps' wiring through the backend seam, without Neo4j: each slot reads
// the readings file again and releases them under its epoch and a fresh
// run id (the Steps' spec left as it was), then locates on that very
// release, drawn and told to the observer, with the one work store (its
// verdict's forecast kept for the next slot); once the ledger refuses a
// release (a budget for one), the slot locates on the scope's last
// release instead.
func TestStepsReleaseLocate(t *testing.T) {
	b := newMemoryBackend(t)
	values := filepath.Join(t.TempDir(), "readings.csv")
	obs := &recordingObserver{}
	store := &job.WorkCache{Dir: t.TempDir()} // the verdict's forecast kept for the next slot
	st := &Steps{Backend: b, Release: job.ReleaseSpec{Scope: "s", Epsilon: 0.5}, Locate: &job.LocateSpec{Store: store},
		Readings: inputfiles.ReadingsFrom(nil, values, "auto"), Observer: obs}
	slot := st.Slot(Slot{Epoch: func(t time.Time) string { return t.Format("2006-01-02T15:04Z") }, Metrics: metrics.New()})
	t0 := time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)
	inputs := []map[string]float64{{"a": 1, "b": 2}, {"a": 3, "b": 4.5}}
	for i, csv := range []string{"node,value\na,1\nb,2\n", "node,value\na,3\nb,4.5\n"} {
		writeReadings(t, values, csv)
		if err := slot.Run(t.Context(), t0.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatalf("slot %d: %v", i, err)
		}
	}
	if len(b.releases) != 2 || len(b.located) != 2 || b.lasts != 1 {
		t.Fatalf("%d releases, %d localisations, %d last-release reads; want 2, 2, 1", len(b.releases), len(b.located), b.lasts)
	}
	first, second := b.releases[0], b.releases[1]
	if first.Epoch != "2026-11-27T05:00Z" || second.Epoch != "2026-11-27T06:00Z" || first.RunID == "" || first.RunID == second.RunID {
		t.Errorf("releases: epoch %q run %q, epoch %q run %q", first.Epoch, first.RunID, second.Epoch, second.RunID)
	}
	for i, want := range inputs {
		if !maps.Equal(b.readings[i], want) {
			t.Errorf("slot %d released readings %v, want the file's %v", i, b.readings[i], want)
		}
	}
	if st.Release.RunID != "" || st.Release.Epoch != "" || st.Locate.RunID != "" {
		t.Errorf("the steps' specs were changed: %+v %+v", st.Release, *st.Locate)
	}
	// Both slots locate on the first release: its own, then the last one
	// after the ledger refused the second.
	for i, l := range b.located {
		if l.releaseRun != first.RunID || !l.drawn || l.spec.RunID == "" || l.spec.RunID == b.releases[i].RunID || l.spec.Store != store {
			t.Errorf("slot %d located %+v, want on %s, drawn, under a run id of its own, with the steps' work store", i, l, first.RunID)
		}
	}
	want := []string{"2026-11-27T05:00Z " + first.RunID, "2026-11-27T06:00Z " + first.RunID}
	if len(obs.located) != 2 || obs.located[0] != want[0] || obs.located[1] != want[1] {
		t.Errorf("observer told %q, want %q", obs.located, want)
	}
}

// A private answer is the slot's only step: the readings file read when
// the backend asks, the answer under the slot's epoch and run id, and the
// observer told how it ended, an error included.
func TestStepsAnswer(t *testing.T) {
	b := newMemoryBackend(t)
	values := filepath.Join(t.TempDir(), "readings.csv")
	obs := &recordingObserver{}
	st := &Steps{Backend: b, Answer: &job.AnswerSpec{Scope: "s"}, Readings: inputfiles.ReadingsFrom(nil, values, "auto"), Observer: obs}
	slot := st.Slot(Slot{Epoch: func(t time.Time) string { return t.Format("2006-01-02T15:04Z") }, Metrics: metrics.New()})
	writeReadings(t, values, "node,value\na,1\nb,2\n")
	t0 := time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)
	if err := slot.Run(t.Context(), t0); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(values); err != nil {
		t.Fatal(err)
	}
	if err := slot.Run(t.Context(), t0.Add(time.Hour)); err == nil {
		t.Error("an answer without its readings file succeeded")
	}
	if len(b.releases) != 0 || len(b.located) != 0 || len(b.answers) != 2 {
		t.Fatalf("%d releases, %d localisations, %d answers; want 0, 0, 2", len(b.releases), len(b.located), len(b.answers))
	}
	a := b.answers[0]
	if a.Epoch != "2026-11-27T05:00Z" || a.RunID == "" || a.RunID == b.answers[1].RunID || st.Answer.RunID != "" {
		t.Errorf("answers: %+v then %+v (steps' spec %+v)", a, b.answers[1], *st.Answer)
	}
	if len(b.answered) != 1 || !maps.Equal(b.answered[0], map[string]float64{"a": 1, "b": 2}) {
		t.Errorf("answered on %v", b.answered)
	}
	if len(obs.answered) != 2 || obs.answered[0] != "2026-11-27T05:00Z "+a.RunID+" ok" || obs.answered[1] == "2026-11-27T06:00Z "+b.answers[1].RunID+" ok" {
		t.Errorf("observer told %q", obs.answered)
	}
}
