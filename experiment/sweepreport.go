package experiment

import "github.com/graphcloak/graphcloak/forecast"

// SweepReport is the graph experiment at several τ or ε: every experiment,
// their rates with 95% Wilson intervals, and the picture drawn of them.
type SweepReport struct {
	Experiments []*forecast.SimulationResult `json:"experiments"`
	Summary     GraphSummary                 `json:"summary"`
	// Plot is the picture's file ("": none drawn).
	Plot string `json:"plot,omitempty"`
}
