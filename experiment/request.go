package experiment

import (
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/plotting"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// Parameters of the requests' checks (errkind.Param), beside check.go's:
// a command shows each as its user types it (errkind.Render).
const (
	ParamEpsilon       errkind.Param = "epsilon"
	ParamDelta         errkind.Param = "delta"
	ParamSigma         errkind.Param = "sigma"
	ParamEstimator     errkind.Param = "estimator"
	ParamResolution    errkind.Param = "resolution"
	ParamPlot          errkind.Param = "plot"
	ParamPrivateAnswer errkind.Param = "private-answer"
)

// CheckPlot refuses (bad input) a picture file whose format cannot be
// written, before any work is done; "" means no picture.
func CheckPlot(path string) error {
	if path == "" {
		return nil
	}
	if err := plotting.CheckImagePath(path); err != nil {
		return errkind.Inputf("%s: %s", ParamPlot, err.Error())
	}
	return nil
}

// CheckPrivacy refuses (bad input) an ε that is not positive and finite
// or a δ outside (0, 1).
func CheckPrivacy(eps, delta float64) error {
	if err := errkind.CheckPositive(ParamEpsilon, eps); err != nil {
		return err
	}
	if !(delta > 0 && delta < 1) {
		return errkind.Inputf("%s must be in (0, 1), got %v", ParamDelta, delta)
	}
	return nil
}

// CheckEstimator refuses (bad input) an estimator recovery does not know.
func CheckEstimator(name string) error {
	if _, err := recovery.ByName(name); err != nil {
		return errkind.Inputf("%s: %s", ParamEstimator, err.Error())
	}
	return nil
}

// ParseMechanism is the σ calibration named name (privacy.ParseMechanism),
// or bad input naming the parameter; the experiments default to the
// discrete Gaussian so they simulate the σ a real release uses.
func ParseMechanism(name string) (privacy.Mechanism, error) {
	m, err := privacy.ParseMechanism(name)
	if err != nil {
		return 0, errkind.Inputf("%s: %s", privacy.ParamMechanism, err.Error())
	}
	return m, nil
}
