package graphcloak

import "github.com/graphcloak/graphcloak/errkind"

// Kinds of this package's errors (package errkind): what a caller can do
// about them, which a command maps to its outcomes in one place.

func (*ParamError) Kind() errkind.Kind  { return errkind.BadInput }
func (*ValuesError) Kind() errkind.Kind { return errkind.BadInput }

// Parameters this package's errors name (errkind.Param): a command shows
// each as its user types it (errkind.Render).
const (
	ParamTau    errkind.Param = "tau"
	ParamHeader errkind.Param = "header"
)

// tauError is a *ParamError on τ whose reason names parameters.
func tauError(reason error) *ParamError {
	r := reason.(errkind.Renderer)
	return &ParamError{Param: "tau", Reason: r.Error(), reason: r}
}

// renderReason is an error's Reason naming parameters as name does: reason
// rendered when the Reason names any, else plain.
func renderReason(plain string, reason errkind.Renderer, name func(errkind.Param) string) string {
	if reason == nil || name == nil {
		return plain
	}
	return reason.RenderText(name)
}
