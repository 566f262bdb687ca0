//go:build unix

package sensor

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockOdometerFile opens the resolved odometer file real and takes an
// exclusive flock(2) on the file itself until the returned function is
// called, so that every name reaching it shares one lock. A save replaces
// the file (rename), so after waiting for the lock it checks that real
// still names the locked file, and starts again if not. A file with more
// than one hard link is refused: the first save would give the other name
// a file of its own.
func lockOdometerFile(real string) (*os.File, func(), error) {
	for attempt := 0; attempt < 1000; attempt++ {
		f, err := os.OpenFile(real, os.O_RDWR, 0)
		if err != nil {
			return nil, nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, nil, err
		}
		unlock := func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }
		held, err1 := f.Stat()
		now, err2 := os.Stat(real)
		if err1 != nil {
			unlock()
			return nil, nil, err1
		}
		if err2 != nil || !os.SameFile(held, now) {
			unlock() // replaced while we waited: lock the new file
			continue
		}
		if st, ok := held.Sys().(*syscall.Stat_t); ok && st.Nlink != 1 {
			unlock()
			return nil, nil, &OdometerError{Corrupt: true, Reason: fmt.Sprintf("has %d hard links: an odometer has one name (use a symbolic link)", st.Nlink)}
		}
		unlockLegacy, err := lockLegacy(real + ".lock")
		if err != nil {
			unlock()
			return nil, nil, err
		}
		return f, func() { unlockLegacy(); unlock() }, nil
	}
	return nil, nil, fmt.Errorf("replaced 1000 times while waiting for its lock")
}

// lockLegacy locks "NAME.lock", where an earlier version took the
// odometer's lock, when it is there (a no-op otherwise): a sensor of that
// version still running and this one then exclude each other.
func lockLegacy(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
