//go:build unix

package sensor

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockOdometer takes an exclusive flock(2) on the hidden ".NAME.lock"
// beside the odometer (created 0600) until the returned function is
// called: two sensor processes sharing an odometer report one after the
// other. The lock file is kept (a waiter blocked on a removed file would
// lock what nobody else sees); "NAME.lock", where an earlier version kept
// it, is locked too when it is there, so that version and this one still
// exclude each other.
func lockOdometer(odometer string) (func(), error) {
	dir, base := filepath.Split(odometer)
	unlock, err := lockFile(filepath.Join(dir, "."+base+".lock"), true)
	if err != nil {
		return nil, err
	}
	unlockLegacy, err := lockFile(odometer+".lock", false)
	if err != nil {
		unlock()
		return nil, err
	}
	return func() { unlockLegacy(); unlock() }, nil
}

// lockFile takes an exclusive flock(2) on path, created if create and
// otherwise a no-op when path is missing.
func lockFile(path string, create bool) (func(), error) {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if !create && errors.Is(err, os.ErrNotExist) {
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
