package job_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"

	. "github.com/graphcloak/graphcloak/job"
)

// fileLedger creates a file ledger in a fresh directory with testScope
// and the (ε, δ) budget b, and returns its path and its read-only and
// read-write openings.
func fileLedger(t *testing.T, b privacy.Budget) (path string, ro, rw *privacy.FileLedger) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "ledger.json")
	if _, err := privacy.CreateFileLedger(context.Background(), path, b, privacy.FileLedgerOptions{}, testScope); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(privacy.LockPath(path)); err != nil { // a dry run must not make it again
		t.Fatal(err)
	}
	ro, err := privacy.OpenFileLedger(path, privacy.FileLedgerOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rw, err = privacy.OpenFileLedger(path, privacy.FileLedgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return path, ro, rw
}

// dirState is every file in dir with its bytes.
func dirState(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func sameDir(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// A release's dry run is its plan: it reads the epoch's earlier run and
// the ledger (read-only: the ledger's directory is byte-identical after,
// no lock file made) and takes no other step; it says the scope's
// balance, the ρ the release would charge and its σ; the release of the
// same spec then uses that σ and charges exactly that ρ from that
// balance.
func TestDryRunIsThePlan(t *testing.T) {
	f := newFixture(t)
	path, ro, rw := fileLedger(t, privacy.Budget{Epsilon: 10, Delta: 1e-5})
	env := f.env()
	env.Ledger = rw
	first := f.spec("r0") // a first epoch, so that the balance is not zero
	first.Epoch = "earlier"
	if p, err := PlanRelease(context.Background(), first, env); err != nil {
		t.Fatal(err)
	} else if _, err := Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	steps := len(f.mem.Steps())

	s := f.spec("r1")
	s.DryRun, s.ForecastTrials, s.Estimator = true, 5, "posterior"
	env.Ledger = ro
	dir := dirState(t, filepath.Dir(path))
	p, err := PlanRelease(context.Background(), s, env)
	if err != nil {
		t.Fatal(err)
	}
	dry := p.Summary
	if got := f.mem.Steps()[steps:]; len(got) != 1 || got[0] != "find release" {
		t.Fatalf("the dry run took steps %q: it may only look for the epoch's earlier run", got)
	}
	if !sameDir(dir, dirState(t, filepath.Dir(path))) {
		t.Fatal("the dry run changed the ledger's directory")
	}
	b := dry.Balance
	if dry.Step != "fresh" || b == nil || !(b.RhoSpent > 0) || dry.Estimate == nil || !(dry.Sigma > 0) || !(dry.Rho > 0) ||
		dry.Forecast == nil || dry.Forecast.Answer == nil || dry.RhoSpent != b.RhoSpent || dry.RhoRemaining != b.RhoRemaining {
		t.Fatalf("dry run summary %+v (balance %+v)", dry, b)
	}
	if _, err := Execute(context.Background(), p); err == nil {
		t.Error("a dry run's plan executed")
	}

	s.DryRun = false
	env.Ledger = rw
	if p, err = PlanRelease(context.Background(), s, env); err != nil {
		t.Fatal(err)
	}
	sum, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sigma != dry.Sigma || sum.Delta2 != dry.Delta2 || sum.Rho != dry.Rho {
		t.Errorf("release σ %v Δ2 %v ρ %v, dry run σ %v Δ2 %v ρ %v", sum.Sigma, sum.Delta2, sum.Rho, dry.Sigma, dry.Delta2, dry.Rho)
	}
	after, err := rw.Balance(context.Background(), testScope)
	if err != nil {
		t.Fatal(err)
	}
	// The ledger sums exactly and rounds up: within one ulp of the sum.
	if want := b.RhoSpent + dry.Rho; math.Abs(after[0].RhoSpent-want) > 2*ulp(want) || after[0].Releases != b.Releases+1 {
		t.Errorf("ρ spent %v after the release (%d releases); the dry run said %v + %v (%d releases)",
			after[0].RhoSpent, after[0].Releases, b.RhoSpent, dry.Rho, b.Releases)
	}
}

func ulp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) - x }

// A dry run over budget is refused as the release is (exit 5), before
// the graph is read, and leaves the ledger byte-identical; it is the
// affordability check of the plan that refuses it.
func TestDryRunOverBudget(t *testing.T) {
	f := newFixture(t)
	path, ro, rw := fileLedger(t, privacy.Budget{Epsilon: 0.5, Delta: 1e-6}) // ε = 1 does not fit
	dir := dirState(t, filepath.Dir(path))
	s := f.spec("r1")
	s.DryRun = true
	env := f.env()
	env.Ledger = ro
	loaded := false
	env.Load = func(context.Context) (*Input, error) { loaded = true; return nil, errors.New("read the graph") }
	_, dryErr := PlanRelease(context.Background(), s, env)
	var be *privacy.BudgetError
	if errkind.Of(dryErr) != errkind.Budget || !errors.As(dryErr, &be) || loaded {
		t.Fatalf("dry run: %v (kind %v, graph read %v); want the budget error (exit 5) before the graph is read", dryErr, errkind.Of(dryErr), loaded)
	}
	if !sameDir(dir, dirState(t, filepath.Dir(path))) {
		t.Fatal("the dry run changed the ledger's directory")
	}
	s.DryRun = false
	env = f.env()
	env.Ledger = rw
	p, err := PlanRelease(context.Background(), s, env)
	if err == nil {
		_, err = Execute(context.Background(), p)
	}
	if errkind.Of(err) != errkind.Budget || err.Error() != dryErr.Error() {
		t.Errorf("release: %v; the dry run said %v", err, dryErr)
	}
}

// After a crash at every step of a release (the dead run's lease
// expired), the dry run of the next run of the epoch says what that run
// then does: refused with the same kind (exit 7 for a charged epoch
// whose values were not stored), or its step — fresh (charged once
// more, the ρ it said), resume (run r1's stored values, no charge),
// already published (nothing). It takes no step but reads.
func TestDryRunSaysWhatTheReleaseDoes(t *testing.T) {
	clean := newFixture(t)
	if _, err := clean.release("r1"); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for k := 1; k <= len(clean.mem.Steps()); k++ {
		t.Run(fmt.Sprintf("step %d (%s)", k, clean.mem.Steps()[k-1]), func(t *testing.T) {
			f := newFixture(t)
			f.mem.CrashAt, f.mem.Kill = k, true
			f.release("r1") //nolint:errcheck // the crash
			f.restart()
			s := f.spec("r2")
			s.DryRun = true
			charges, steps := f.mem.Charges(), len(f.mem.Steps())
			p, dryErr := PlanRelease(context.Background(), s, f.env())
			for _, st := range f.mem.Steps()[steps:] {
				if st != "find release" && st != "ledger charged" && st != "ledger balance" {
					t.Fatalf("the dry run took step %q", st)
				}
			}
			sum, err := f.release("r2")
			switch {
			case dryErr != nil || err != nil:
				seen["refused"]++
				if errkind.Of(dryErr) != errkind.Of(err) || !errors.As(dryErr, new(*ChargedError)) {
					t.Fatalf("dry run: %v (kind %v); release: %v (kind %v)", dryErr, errkind.Of(dryErr), err, errkind.Of(err))
				}
				return
			case p.Summary.Step == "fresh":
				if sum.Resumed || sum.AlreadyPublished || f.mem.Charges() != charges+1 || sum.Rho != p.Summary.Rho {
					t.Fatalf("the dry run said fresh (ρ %v); the release: %+v, %d charges", p.Summary.Rho, sum, f.mem.Charges()-charges)
				}
			case p.Summary.Step == "resume":
				if !sum.Resumed || sum.RunID != p.Summary.RunID || f.mem.Charges() != charges {
					t.Fatalf("the dry run said resume %s; the release: %+v", p.Summary.RunID, sum)
				}
			case p.Summary.Step == "already published":
				if !sum.AlreadyPublished || f.mem.Charges() != charges {
					t.Fatalf("the dry run said already published; the release: %+v", sum)
				}
			default:
				t.Fatalf("the dry run said %q", p.Summary.Step)
			}
			seen[p.Summary.Step]++
		})
	}
	for _, st := range []string{"refused", "fresh", "resume", "already published"} {
		if seen[st] == 0 {
			t.Errorf("no crash point made the dry run say %q: %v", st, seen)
		}
	}
}

// While the run that stored the epoch's values is live, the dry run says
// the release would wait for it; published to another property or
// overwritten, it is refused as the release is (exit 3, exit 7).
func TestDryRunOfAnEpochInUse(t *testing.T) {
	f := liveStoredRun(t)
	s := f.spec("r2")
	s.DryRun = true
	p, err := PlanRelease(context.Background(), s, f.env())
	if err != nil || p.Summary.Step != "wait" || p.Summary.RunID != "r1" {
		t.Fatalf("dry run %v, %+v; want wait for r1", err, p.Summary)
	}

	f = newFixture(t)
	if _, err := f.release("r1"); err != nil {
		t.Fatal(err)
	}
	s = f.spec("r2")
	s.DryRun, s.WriteProperty = true, "w"
	if _, err := PlanRelease(context.Background(), s, f.env()); errkind.Of(err) != errkind.BadInput {
		t.Errorf("other property: dry run %v (kind %v), want bad input", err, errkind.Of(err))
	}
	next := f.spec("r3") // another epoch's run writes over r1's values
	next.Epoch = "next"
	if p, err := PlanRelease(context.Background(), next, f.env()); err != nil {
		t.Fatal(err)
	} else if _, err := Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	s = f.spec("r4")
	s.DryRun = true
	if _, err := PlanRelease(context.Background(), s, f.env()); !errors.As(err, new(*ChargedError)) {
		t.Errorf("overwritten: dry run %v (kind %v), want *ChargedError (exit 7)", err, errkind.Of(err))
	}
}
