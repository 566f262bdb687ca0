package privacy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// LockPath is the lock file of file: the hidden ".NAME.lock" beside it.
// Lock files are never removed — a waiter blocked on a file another
// process unlinks would take a lock nobody else can see — so they are
// hidden, and the repository's .gitignore lists ".*.lock".
func LockPath(file string) string {
	dir, base := filepath.Split(file)
	return filepath.Join(dir, "."+base+".lock")
}

// flockLegacy takes flock(2) of kind how on lockPath only if it exists:
// the "NAME.lock" a graphcloak from before LockPath locked, so that one
// still running excludes and is excluded by this one. It is never created.
func flockLegacy(ctx context.Context, lockPath string, how int) (unlock func(), err error) {
	lf, err := os.OpenFile(lockPath, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		if lf, err = os.Open(lockPath); err != nil {
			return nil, err
		}
	}
	return flockFile(ctx, lf, how, nil)
}

// flockWait takes flock(2) of the given kind (syscall.LOCK_SH or LOCK_EX)
// on the file lockPath, created if missing, polling so that ctx can end
// the wait. busy, if not nil, is called once when the lock is held by
// another process (or open file). The returned unlock releases the lock
// and may be called more than once.
func flockWait(ctx context.Context, lockPath string, how int, busy func()) (unlock func(), err error) {
	lf, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return flockFile(ctx, lf, how, busy)
}

// flockExisting takes a shared flock(2) on lockPath without creating it,
// for a reader that must leave no trace. A missing lock file is no lock:
// CreateFileLedger creates it, so none means no writer since the file was
// put there, and a writer starting meanwhile can at worst make the read
// see a ledger behind its high-water mark — refused, never misread.
func flockExisting(ctx context.Context, lockPath string) (unlock func(), err error) {
	lf, err := os.Open(lockPath)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	return flockFile(ctx, lf, syscall.LOCK_SH, nil)
}

// flockFile takes flock(2) of kind how on the open file lf (closed on
// failure and by unlock).
func flockFile(ctx context.Context, lf *os.File, how int, busy func()) (unlock func(), err error) {
	for {
		err := syscall.Flock(int(lf.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			lf.Close()
			return nil, err
		}
		if busy != nil && errors.Is(err, syscall.EWOULDBLOCK) {
			busy()
			busy = nil
		}
		select {
		case <-ctx.Done():
			lf.Close()
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
	done := false
	return func() {
		if !done {
			done = true
			syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
			lf.Close()
		}
	}, nil
}
