package job

import (
	"errors"
	"strings"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// ChargedError: the epoch was charged but its values cannot be published
// (kind charged). Publishing the data again needs a new epoch and a new
// charge; never a re-draw of the same epoch.
type ChargedError struct {
	Epoch string
	Err   error
}

func (e *ChargedError) Error() string { return e.text().Error() }

// RenderText is its text naming the epoch parameter as name does.
func (e *ChargedError) RenderText(name func(errkind.Param) string) string {
	return e.text().RenderText(name)
}

func (e *ChargedError) text() errkind.Renderer {
	return errkind.Errorf("epoch %q is charged but its values cannot be published: %w (release under a new %s; that costs ρ again)", e.Epoch, e.Err, ParamEpoch).(errkind.Renderer)
}

func (e *ChargedError) Unwrap() error    { return e.Err }
func (*ChargedError) Kind() errkind.Kind { return errkind.Charged }

// NotStoredError: the release's values could not be stored (or its run
// record not updated) before any node was written. The epoch is charged
// but nothing can re-publish it.
type NotStoredError struct{ Err error }

func (e *NotStoredError) Error() string {
	return "the released values were not stored: " + e.Err.Error()
}
func (e *NotStoredError) Unwrap() error    { return e.Err }
func (*NotStoredError) Kind() errkind.Kind { return errkind.Charged }

// Parameters this package's errors name (errkind.Param): a command shows
// each under the name its user types (errkind.Render).
const (
	ParamScope             errkind.Param = "scope"
	ParamEpoch             errkind.Param = "epoch"
	ParamWait              errkind.Param = "wait"
	ParamLease             errkind.Param = "lease"
	ParamOut               errkind.Param = "output file"
	ParamWriteProperty     errkind.Param = "write property"
	ParamCertificate       errkind.Param = "sensitivity certificate"
	ParamSmooth            errkind.Param = "smooth"
	ParamRefuseAtChance    errkind.Param = "refuse at chance"
	ParamPrivateAnswer     errkind.Param = "private answer"
	ParamAnswerCap         errkind.Param = "answer cap"
	ParamOnMismatch        errkind.Param = "on-mismatch"
	ParamEstimator         errkind.Param = "estimator"
	ParamSigma             errkind.Param = "sigma"
	ParamTau               errkind.Param = "tau"
	ParamReleaseRun        errkind.Param = "release run"
	ParamReleasedProperty  errkind.Param = "released property"
	ParamCommunityProperty errkind.Param = "communities property"
	ParamMassProperty      errkind.Param = "mass property"
	ParamCommunityOut      errkind.Param = "community write property"
	ParamProbability       errkind.Param = "probability property"
	ParamRank              errkind.Param = "rank property"
	ParamSourceMass        errkind.Param = "source mass"
	ParamNodeKey           errkind.Param = "node key property"
	ParamProjection        errkind.Param = "projection"
)

// outputConflict is connector's *OutputConflictError told in this
// package's parameters.
type outputConflict struct {
	err  *connector.OutputConflictError
	text errkind.Renderer
}

func (e *outputConflict) Error() string { return e.text.Error() }
func (e *outputConflict) Unwrap() error { return e.err }
func (e *outputConflict) RenderText(name func(errkind.Param) string) string {
	return e.text.RenderText(name)
}

// checkOutputs is connector.CheckOutputs with the outputs keyed by
// parameter and reads (property → what it is, besides the projection's
// read) told as errors that name parameters, so that its refusal names
// the parameters too.
func checkOutputs(p connector.Projection, reads map[string]error, outputs map[errkind.Param]string, bound map[errkind.Param]bool) error {
	read := connector.ReadProperties(p, nil)
	whats := map[string]error{}
	for name, what := range reads {
		if name != "" {
			read[name] = what.Error()
			whats[what.Error()] = what
		}
	}
	outs, bnd := map[string]string{}, map[string]bool{}
	for p, name := range outputs {
		outs[string(p)], bnd[string(p)] = name, bound[p]
	}
	err := connector.CheckOutputs(read, outs, bnd)
	var oc *connector.OutputConflictError
	if !errors.As(err, &oc) {
		return err
	}
	var with any = oc.With
	if w, ok := whats[oc.With]; ok {
		with = w
	} else if r := connector.ReadRole(oc.With); r != nil {
		with = r
	} else if other, ok := strings.CutPrefix(oc.With, "also written by "); ok {
		with = errkind.Errorf("also written by %s", errkind.Param(other))
	}
	return &outputConflict{oc, errkind.Errorf("connector: %s %q is %s: writing it would overwrite them", errkind.Param(oc.Flag), oc.Name, with).(errkind.Renderer)}
}
