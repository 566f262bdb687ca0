package privacy

// CalibrationReport is a Gaussian calibration beside the σ of the
// discrete Gaussian at the same (ε, δ, Δ), the noise a release publishes.
type CalibrationReport struct {
	Calibration
	// DiscreteSigma is the σ of the discrete Gaussian release (zCDP/CKS20
	// accounting) at the same (ε, δ, Δ), before grid rounding.
	DiscreteSigma float64 `json:"discreteSigma"`
}

// CalibrateWithDiscrete is Calibrate(p) with the discrete Gaussian's σ at
// the same parameters (DiscreteSigma).
func CalibrateWithDiscrete(p CalibrationParams) (CalibrationReport, error) {
	c, err := Calibrate(p)
	if err != nil {
		return CalibrationReport{}, err
	}
	r := CalibrationReport{Calibration: c}
	if r.DiscreteSigma, err = DiscreteSigma(p.Sensitivity, p.Epsilon, p.Delta); err != nil {
		return CalibrationReport{}, err
	}
	return r, nil
}
