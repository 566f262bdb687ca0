package sensitivity

import (
	"math"

	"github.com/graphcloak/graphcloak/errkind"
)

// Parameters and operations this package's errors name (errkind.Param): a
// command shows each as its user types it (errkind.Render).
const (
	// ParamMethod is the Δ2 method a computation runs (its scheme).
	ParamMethod errkind.Param = "Δ2 method"
	// ParamSave is saving a certificate (SaveCertificate).
	ParamSave errkind.Param = "SaveCertificate"
	// ParamMACKey is the key certificates are sealed under.
	ParamMACKey errkind.Param = "MAC key"
)

// Parameters of the 1-D heat kernel (Line) that CheckLine names.
const (
	ParamLineN errkind.Param = "n"
	ParamLineM errkind.Param = "m"
	ParamLineT errkind.Param = "T"
)

// CheckLine refuses (bad input) a line kernel Line cannot compute: n and
// m below 1, T not positive and finite. Its errors name the parameters
// (ParamLineN, ParamLineM, ParamLineT), so a command shows its own flags.
func CheckLine(n, m int, T float64) error {
	switch {
	case n < 1:
		return errkind.Inputf("%s must be ≥ 1, got %d", ParamLineN, n)
	case m < 1:
		return errkind.Inputf("%s must be ≥ 1, got %d", ParamLineM, m)
	case math.IsNaN(T) || math.IsInf(T, 0) || T <= 0:
		return errkind.Inputf("%s must be > 0 and finite, got %v", ParamLineT, T)
	}
	return nil
}
