package job_test

import (
	"context"
	"fmt"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/job/jobtest"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"

	. "github.com/graphcloak/graphcloak/job"
)

// answerFixture is one epoch's private answer on the 3×3 grid of
// newFixture, with three named row communities and a ledger whose
// budget is (epsTotal, 10⁻⁵).
func answerFixture(t *testing.T, epsTotal float64) *fixture {
	f := newFixture(t)
	f.mem = jobtest.NewMemory(func() time.Time { return f.now }, testScope, privacy.Budget{Epsilon: epsTotal, Delta: 1e-5})
	return f
}

func (f *fixture) answerSpec(runID string) AnswerSpec {
	return AnswerSpec{RunID: runID, Graph: "grid", Communities: "property:row", Neo4j: true, Database: "neo4j",
		Projection: connector.Projection{NodeKeyProperty: "roomId"}, Scope: testScope, Epoch: testEpoch,
		Tau: 0.5, Alpha: 1, Epsilon: 1, Delta: 1e-6, Estimator: "posterior", Seed: 1, Noise: privacy.CryptoNoise(),
		ForecastTrials: 5, Lease: lease}
}

func (f *fixture) answerEnv() Env {
	return Env{Backend: f.mem, Ledger: f.mem, Now: func() time.Time { return f.now },
		Load: func(context.Context) (*Input, error) {
			f0 := make([]float64, f.graph.N())
			f0[4] = 1 // the centre of the grid
			act, err := expm.NewAction(f.graph, 0.5, expm.Options{})
			if err != nil {
				return nil, err
			}
			y := make([]float64, len(f0))
			act.Apply(y, f0, 1)
			return &Input{Graph: f.graph, Readings: y, Partition: []int{0, 0, 0, 1, 1, 1, 2, 2, 2},
				Names: []string{"north", "middle", "south"}}, nil
		}}
}

// answer plans and executes one private answer run.
func (f *fixture) answer(runID string) (*AnswerSummary, error) {
	p, err := PlanAnswer(context.Background(), f.answerSpec(runID), f.answerEnv())
	if err != nil {
		return nil, err
	}
	return ExecuteAnswer(context.Background(), p)
}

// A private answer claims its run before the ledger is charged, and is
// published by its run record: succeeded last, with the community drawn.
func TestAnswerPublishes(t *testing.T) {
	f := answerFixture(t, 10)
	sum, err := f.answer("a1")
	if err != nil {
		t.Fatal(err)
	}
	steps := f.mem.Steps()
	// The first balance is the scope's sensor model, read before the
	// readings (adoptSensorModel); the second, whether the answer fits.
	want := []string{"ledger charged", "ledger balance", "ledger balance", "start run", "ledger charge", "ledger balance", "succeed run"}
	if fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Errorf("steps %q, want %q", steps, want)
	}
	if st, err := f.mem.AnswerState(testScope, testEpoch); err != nil || st != StatePublished {
		t.Fatalf("state %v, %v; want published", st, err)
	}
	rec := f.run("a1")
	if rec.Parameters["community"] != sum.Answer.Community || sum.RunID != "a1" || f.mem.Charges() != 1 ||
		sum.Balance == nil || sum.Balance.RhoSpent != sum.Answer.Calibration.Rho || sum.Forecast == nil {
		t.Errorf("record %+v, summary %+v, %d charges", rec, sum, f.mem.Charges())
	}
}

// expiredLedger is a jobtest.Memory whose Balance honours its context:
// it fails under a context that is done (a deadline already missed).
type expiredLedger struct{ *jobtest.Memory }

func (l expiredLedger) Balance(ctx context.Context, scope string) ([]privacy.Balance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.Memory.Balance(ctx, scope)
}

// A succeeded answer's summary has the balance after its charge even when
// the bookkeeping deadline has passed (a slow but live server under load):
// the balance is read under the run's context, as a release reads it.
func TestAnswerBalanceOutlivesBookkeeping(t *testing.T) {
	f := answerFixture(t, 10)
	env := f.answerEnv()
	env.Ledger = expiredLedger{f.mem}
	env.Bookkeeping = func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}
	p, err := PlanAnswer(context.Background(), f.answerSpec("a1"), env)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ExecuteAnswer(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Balance == nil || sum.Balance.RhoSpent != sum.Answer.Calibration.Rho {
		t.Fatalf("balance %+v after a charge of ρ %v, want the balance after the charge", sum.Balance, sum.Answer.Calibration.Rho)
	}
}

// An answer the budget cannot pay for, or of an epoch charged before,
// is refused before its run is claimed: no run record, no charge.
func TestAnswerRefusedBeforeClaim(t *testing.T) {
	f := answerFixture(t, 0.5) // the answer's ε = 1 fits neither accounting
	if _, err := f.answer("a1"); errkind.Of(err) != errkind.Budget || len(f.mem.Runs()) != 0 || f.mem.Charges() != 0 {
		t.Errorf("over budget: %v (kind %v), %d runs, %d charges; want the budget error, nothing claimed", err, errkind.Of(err), len(f.mem.Runs()), f.mem.Charges())
	}
	f = answerFixture(t, 10)
	if err := f.mem.Charge(context.Background(), privacy.Charge{Scope: testScope, ReleaseID: testEpoch, Rho: 0.1}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.answer("a1"); errkind.Of(err) != errkind.Charged || len(f.mem.Runs()) != 0 || f.mem.Charges() != 1 {
		t.Errorf("charged epoch: %v (kind %v), %d runs, %d charges; want exit 7, nothing claimed", err, errkind.Of(err), len(f.mem.Runs()), f.mem.Charges())
	}
}

// Crash a private answer at every step — as a killed process and as a
// failed step, whose failure is recorded — then, once the dead run's
// lease has expired, answer the epoch again. After the crash the store
// is in one of the documented states (AnswerState checks their
// invariants); the re-run ends as documented: untouched or claimed →
// answered with one charge; charged (the answer lost) or published →
// refused with exit 7, never charged or drawn twice.
func TestAnswerCrashAtEveryStep(t *testing.T) {
	clean := answerFixture(t, 10)
	if _, err := clean.answer("a1"); err != nil {
		t.Fatal(err)
	}
	steps := clean.mem.Steps()
	seen := map[State]int{}
	for _, kill := range []bool{true, false} {
		for k := 1; k <= len(steps); k++ {
			t.Run(fmt.Sprintf("kill=%v/step %d (%s)", kill, k, steps[k-1]), func(t *testing.T) {
				seen[answerCrashThenRerun(t, k, kill)]++
			})
		}
	}
	for _, st := range []State{StateUntouched, StateClaimed, StateCharged, StatePublished} {
		if seen[st] == 0 {
			t.Errorf("no crash point left the store %v: %v", st, seen)
		}
	}
}

func answerCrashThenRerun(t *testing.T, k int, kill bool) State {
	f := answerFixture(t, 10)
	f.mem.CrashAt, f.mem.Kill = k, kill
	_, err := f.answer("a1")
	st, serr := f.mem.AnswerState(testScope, testEpoch)
	if serr != nil {
		t.Fatalf("after the crash: %v", serr)
	}
	if (err == nil) != (st == StatePublished) {
		t.Fatalf("error %v, state %v", err, st)
	}
	if r := f.run("a1"); r != nil && !kill && st != StatePublished && r.Status != connector.StatusFailed {
		t.Fatalf("state %v: the failure (%v) is not recorded: run %s", st, err, r.Status)
	}
	f.restart()
	sum, err := f.answer("a2")
	after, serr := f.mem.AnswerState(testScope, testEpoch)
	if serr != nil {
		t.Fatalf("after the re-run: %v", serr)
	}
	if n := f.mem.Charges(); n != 1 && st != StateUntouched && st != StateClaimed {
		t.Fatalf("state %v: %d charges after the re-run", st, n)
	}
	switch st {
	case StateUntouched, StateClaimed:
		if err != nil || after != StatePublished || sum.RunID != "a2" || f.mem.Charges() != 1 {
			t.Fatalf("%v: re-run %v, state %v, %d charges; want answered once", st, err, after, f.mem.Charges())
		}
	case StateCharged, StatePublished:
		if errkind.Of(err) != errkind.Charged || after != st || f.run("a2") != nil {
			t.Fatalf("%v: re-run %v (kind %v), state %v; want exit 7, nothing claimed", st, err, errkind.Of(err), after)
		}
	default:
		t.Fatalf("state %v is not a private answer's", st)
	}
	return st
}

// The run record names the fit tolerance the model ran at: with
// --sensor-noise that is the one derived from ν, not the flag's 0.01.
func TestAnswerRecordsModelTolerance(t *testing.T) {
	f := newFixture(t)
	f.mem = jobtest.NewMemory(func() time.Time { return f.now }, testScope, privacy.Budget{Epsilon: 10, Delta: 1e-5, AnswerDelta: 1e-6})
	spec := f.answerSpec("a1")
	spec.FitTolerance, spec.SensorNoise = 0.01, 0.01
	p, err := PlanAnswer(context.Background(), spec, f.answerEnv())
	if err != nil {
		t.Fatal(err)
	}
	ran := p.Model.Certifier.Tol()
	if ran == spec.FitTolerance {
		t.Fatalf("the model ran at the flag's tolerance %g: pick a ν that moves it", ran)
	}
	if _, err := ExecuteAnswer(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if got := f.run("a1").Parameters["fitTolerance"]; got != ran {
		t.Errorf("run record's fitTolerance %v, the model ran at %g", got, ran)
	}
}
