//go:build unix

package sensor

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) on path (created 0600) until the
// returned function is called: two sensor processes sharing an odometer
// report one after the other.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
