package answer

import "github.com/graphcloak/graphcloak/privacy"

// NearestRight is the chance that the answer to values at the nearest fit
// (MismatchNearest, as a scope with a sensor model answers), calibrated by
// cal, names source s's own community: exact for the mechanism, 0 for a
// source in no class's majority (as the audit counts it). A simulation's
// readings only (plan's forecast under a sensor model): nothing is drawn
// or charged.
func (m *Model) NearestRight(cal privacy.AnswerCalibration, values []float64, s int) (float64, error) {
	node, _, err := m.FitReadings(values, MismatchNearest)
	if err != nil {
		return 0, err
	}
	c := m.community[s]
	if c < 0 {
		return 0, nil
	}
	return cal.ProbabilitiesAt(m.Geometry, m.node(node))[c], nil
}
