package sensor

import (
	"encoding/hex"
	"fmt"
)

// loadOdometer reads an odometer as Report does (resolved, locked, parsed)
// and releases its lock.
func loadOdometer(path, node string) (*odometer, error) {
	lo, err := openOdometer(path, node)
	if err != nil {
		return nil, err
	}
	lo.unlock()
	return lo.od, nil
}

// openPolicy is a policy that admits the test orders many times a day:
// α = 1, σ floor 1, ε 1000 a day.
func openPolicy() Policy { return Policy{Alpha: 1, SigmaFloor: 1, MaxEpsilonPerDay: 1000} }

func fmtAll(v any) string { return fmt.Sprintf("%v %+v %#v %x %s", v, v, v, v, v) }

func hexOf(b []byte) string { return hex.EncodeToString(b) }
