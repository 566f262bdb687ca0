package cost

import "github.com/graphcloak/graphcloak/errkind"

// Parameters the models name where they change the work (errkind.Param):
// a command shows each under the name its user types (the Name of the
// work's inputs; nil: "--" and the parameter).
const (
	ParamAnswerCache      errkind.Param = "answer-cache"
	ParamCacheDir         errkind.Param = "cache-dir"
	ParamSensitivityCert  errkind.Param = "sensitivity-cert"
	ParamSensitivityCache errkind.Param = "sensitivity-cache"
	ParamDryRun           errkind.Param = "dry-run"
)

// Names renders a parameter as its user types it (cmd's flag names).
type Names func(errkind.Param) string

// of is p under n, or "--p" without n.
func (n Names) of(p errkind.Param) string {
	if n == nil {
		return "--" + string(p)
	}
	return n(p)
}
