package sensitivity

import "github.com/graphcloak/graphcloak/errkind"

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
