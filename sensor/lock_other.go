//go:build !unix

package sensor

import "os"

// lockOdometerFile opens the odometer without a lock where flock(2) is
// missing: run one sensor process per odometer there.
func lockOdometerFile(real string) (*os.File, func(), error) {
	f, err := os.Open(real)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
