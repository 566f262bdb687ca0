package stores

import "context"

// ForecastPartition is the partition a release's forecasts score on lg
// (its private answer is calibrated on it): the release's communities
// (kind, as --communities names them), else Leiden's, at resolution 1
// and the forecasts' seed.
func (lg *Graph) ForecastPartition(ctx context.Context, kind string, seed uint64) ([]int, error) {
	if kind == "" {
		kind = "leiden"
	}
	_, part, _, err := lg.ScoredPartition(ctx, kind, 1, seed)
	return part, err
}
