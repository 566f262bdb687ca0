package recovery

import (
	"encoding/json"
	"math"
)

// MarshalJSON writes an Estimate with null for the NaN and ±Inf fields
// (for example Gap of a likelihood estimator, DualBound +Inf of an
// infeasible BPDN), which encoding/json would otherwise reject.
func (e *Estimate) MarshalJSON() ([]byte, error) {
	num := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		F           []float64 `json:"f"`
		Posterior   []float64 `json:"posterior,omitempty"`
		Locations   []int     `json:"locations,omitempty"`
		Status      Status    `json:"status"`
		Objective   *float64  `json:"objective"`
		DualBound   *float64  `json:"dualBound"`
		Gap         *float64  `json:"gap"`
		Residual    *float64  `json:"residual"`
		Eta         *float64  `json:"eta"`
		LogEvidence *float64  `json:"logEvidence"`
		Iterations  int       `json:"iterations"`
		Infeasible  bool      `json:"infeasibilityCertified,omitempty"`
	}{e.F, e.Posterior, e.Locations, e.Status, num(e.Objective), num(e.DualBound), num(e.Gap),
		num(e.Residual), num(e.Eta), num(e.LogEvidence), e.Iterations,
		e.Status == Infeasible && math.IsInf(e.DualBound, 1)})
}
