package privacy

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

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
