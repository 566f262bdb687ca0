package job

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// File is a release file locked for this release (privacy.
// PrepareReleaseFile): checked writable before anything is charged, never
// overwritten, committed after the draw.
type File struct {
	pending *privacy.PendingReleaseFile
}

// PrepareFile checks and locks the release file at path, waiting up to
// wait for another release writing the same file.
func PrepareFile(ctx context.Context, path string, wait time.Duration, log *slog.Logger) (*File, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	pending, err := privacy.PrepareReleaseFile(wctx, path, func() {
		if log != nil {
			log.Info("waiting for another release writing the same output file to commit", "out", path)
		}
	})
	var busy *privacy.ReleaseFileBusyError
	switch {
	case err == nil:
		return &File{pending: pending}, nil
	case errors.As(err, &busy):
		return nil, errkind.Errorf("%s: %w: gave up after %s %v; re-run once it ends", ParamOut, err, ParamWait, wait)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return nil, errkind.Inputf("%s: %w", ParamOut, err)
}

// Path is the release file's path.
func (f *File) Path() string { return f.pending.Path() }

// Abort releases the lock and removes the temporary file (no-op after a
// commit).
func (f *File) Abort() { f.pending.Abort() }

// outPath is the release file a plan checks: the locked file of a
// release, the output file itself for a dry run (read, never locked or written),
// "" when there is none.
func (p *ReleasePlan) outPath() string {
	switch {
	case p.env.File != nil:
		return p.env.File.Path()
	case p.Spec.DryRun:
		return p.Spec.Out
	}
	return ""
}

// existingFile applies the rule that a release file is never
// overwritten, checked under the lock before the ledger is touched: a
// file holding this scope's epoch is this release, already published
// (done: nothing to do, nothing charged, the file unchanged — a re-run of a file
// release is idempotent); any other file there is refused (bad input), since
// replacing it would lose a published release (or whatever else it
// holds). Without an epoch every run is a new epoch, so a second run to
// the same file is refused, never charged twice.
func (p *ReleasePlan) existingFile() (done bool, err error) {
	path, sum := p.outPath(), p.Summary
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	prev, err := privacy.ReadReleaseFile(path)
	if err != nil {
		return false, errkind.Inputf("%s %s exists and is not a release file graphcloak can read (%v): a release never overwrites a file; give another %s", ParamOut, path, err, ParamOut)
	}
	if prev.Meta.Scope == sum.Scope && prev.Meta.Epoch == sum.Epoch {
		if p.Spec.Neo4j { // the database's run records decide (Execute)
			return false, nil
		}
		return true, p.alreadyPublishedFile(nil)
	}
	return false, errkind.Inputf("%s %s already holds release %s (scope %q, epoch %q): a release file is never overwritten; give another %s (e.g. one per epoch), or re-run with %s %s to confirm it is published",
		ParamOut, path, prev.Meta.ReleaseID, prev.Meta.Scope, prev.Meta.Epoch, ParamOut, ParamEpoch, prev.Meta.Epoch)
}

// alreadyPublishedFile: a file release of a charged epoch whose output is
// already in the release file is a no-op success; otherwise the charge
// cannot be re-published here.
func (p *ReleasePlan) alreadyPublishedFile(cause error) error {
	path, sum := p.outPath(), p.Summary
	prev, err := privacy.ReadReleaseFile(path)
	if err == nil && prev.Meta.Scope == sum.Scope && prev.Meta.Epoch == sum.Epoch {
		sum.AlreadyPublished, sum.Out = true, path
		sum.Sigma, sum.Rho, sum.ReleaseID, sum.Mechanism = prev.Meta.Sigma, prev.Meta.Rho, prev.Meta.ReleaseID, prev.Meta.Mechanism
		sum.Delta2, sum.Delta2Exact, sum.SensitivityMethod = prev.Meta.Sensitivity, prev.Meta.SensitivityExact, prev.Meta.SensitivityMethod
		sum.NodeCount = prev.Meta.N
		p.env.logger().Info("epoch already published to the output file: nothing to do", "epoch", sum.Epoch, "out", path)
		return nil
	}
	return &ChargedError{Epoch: sum.Epoch, Err: fmt.Errorf("%w; its release file is not at %s", cause, path)}
}
