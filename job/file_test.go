package job_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"

	. "github.com/graphcloak/graphcloak/job"
)

// fileRelease plans and executes a release to the file at path (no
// database: the ledger is the jobtest.Memory's).
func (f *fixture) fileRelease(runID, path string) (*ReleaseSummary, error) {
	s := f.spec(runID)
	s.Neo4j, s.Out = false, path
	env := f.env()
	env.Backend = nil
	var err error
	if env.File, err = PrepareFile(context.Background(), path, 0, nil); err != nil {
		return nil, err
	}
	defer env.File.Abort()
	p, err := PlanRelease(context.Background(), s, env)
	if err != nil {
		return nil, err
	}
	return Execute(context.Background(), p)
}

// A file release crashed at each of its ledger steps, then run again:
// before the charge the re-run releases (one charge); after the charge
// and before the file was committed it is refused (exit 7, no second
// draw); once the file is there the re-run does nothing and the file is
// unchanged. A release file is never overwritten.
func TestFileReleaseCrashAtEveryStep(t *testing.T) {
	clean := newFixture(t)
	if _, err := clean.fileRelease("r1", filepath.Join(t.TempDir(), "release.json")); err != nil {
		t.Fatal(err)
	}
	total := len(clean.mem.Steps())
	for k := 1; k <= total; k++ {
		t.Run(fmt.Sprintf("step %d (%s)", k, clean.mem.Steps()[k-1]), func(t *testing.T) {
			f := newFixture(t)
			path := filepath.Join(t.TempDir(), "release.json")
			f.mem.CrashAt, f.mem.Kill = k, true
			_, err1 := f.fileRelease("r1", path)
			charged := f.mem.Charges() == 1
			before, _ := os.ReadFile(path)
			f.mem.Restart()
			sum, err := f.fileRelease("r2", path)
			after, _ := os.ReadFile(path)
			switch {
			case len(before) > 0: // committed: nothing to do, the file unchanged
				if err != nil || !sum.AlreadyPublished || string(after) != string(before) {
					t.Fatalf("re-run of a published file: %v, %+v", err, sum)
				}
			case charged:
				if !errors.As(err, new(*ChargedError)) || errkind.Of(err) != errkind.Charged || len(after) != 0 {
					t.Fatalf("charged, no file: re-run %v; want exit 7 and no file", err)
				}
			default:
				if err1 == nil || err != nil || sum.AlreadyPublished || len(after) == 0 {
					t.Fatalf("crash before the charge (%v): re-run %v, %+v; want a release", err1, err, sum)
				}
			}
			if f.mem.Charges() != 1 {
				t.Fatalf("%d charges, want 1", f.mem.Charges())
			}
			if rel, err := privacy.ReadReleaseFile(path); err == nil && rel.Meta.Epoch != testEpoch {
				t.Fatalf("file holds epoch %q", rel.Meta.Epoch)
			}
		})
	}
	// A process killed between the charge and the commit left the epoch
	// charged and no file: the re-run is refused (exit 7), never drawn.
	f := newFixture(t)
	if err := f.mem.Charge(context.Background(), privacy.Charge{Scope: testScope, ReleaseID: testEpoch, Rho: 1e-3}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.fileRelease("r2", filepath.Join(t.TempDir(), "release.json")); !errors.As(err, new(*ChargedError)) || f.mem.Charges() != 1 {
		t.Errorf("charged, no file: %v, %d charges; want *ChargedError, 1", err, f.mem.Charges())
	}
	// Another epoch to the same file is refused, nothing charged.
	f = newFixture(t)
	path := filepath.Join(t.TempDir(), "release.json")
	if _, err := f.fileRelease("r1", path); err != nil {
		t.Fatal(err)
	}
	s := f.spec("r2")
	s.Neo4j, s.Out, s.Epoch = false, path, "other"
	env := f.env()
	env.Backend = nil
	var err error
	if env.File, err = PrepareFile(context.Background(), path, 0, nil); err != nil {
		t.Fatal(err)
	}
	defer env.File.Abort()
	if _, err := PlanRelease(context.Background(), s, env); errkind.Of(err) != errkind.BadInput || f.mem.Charges() != 1 {
		t.Errorf("another epoch to a published file: %v, %d charges; want bad input, 1", err, f.mem.Charges())
	}
}
