package forecast

import (
	"math"

	"github.com/graphcloak/graphcloak/privacy"
)

// Forecast is the expected utility of one way of releasing on one graph,
// from a seeded simulation of the real pipeline: the rate of the right
// community in first place and of the source's community inside the 90%
// set, each with a 95% interval, beside the chance level (a uniformly
// random community; a uniformly random set of the same size) and the
// ceiling no (ε, δ)-DP mechanism can beat (Ceiling).
type Forecast struct {
	// Mode is ModePerNode (per-node values with Gaussian noise) or
	// ModeAnswer (the private answer); Mechanism names the noise.
	Mode      string  `json:"mode"`
	Mechanism string  `json:"mechanism"`
	Epsilon   float64 `json:"epsilon"`
	Delta     float64 `json:"delta,omitempty"`
	Tau       float64 `json:"tau"`
	Alpha     float64 `json:"alpha"`
	// Smooth is the extra diffusion τ′ of a smoothed per-node release
	// (release --smooth): the release is at τ + τ′.
	Smooth float64 `json:"smooth,omitempty"`
	// Sigma is the per-node noise (ModePerNode).
	Sigma float64 `json:"sigma,omitempty"`
	// Missing is the fraction of sensors that do not report (a local
	// release; Simulation.Missing): missing uniformly at random,
	// independent of the source, the rest located from their readings alone.
	Missing float64 `json:"missingFraction,omitempty"`
	// SourceMass is the total mass of the simulated sources (0: unit
	// sources): a verdict's forecast simulates what the release carries.
	SourceMass float64 `json:"sourceMass,omitempty"`
	// MassCurve (plan, dry runs) is the forecast at each source mass of
	// MassGrid and ResolvableMass the smallest whose releases are answers
	// (0: none up to 1000 units).
	MassCurve      []MassPoint `json:"massCurve,omitempty"`
	ResolvableMass float64     `json:"resolvableMass,omitempty"`
	// Resolved (with MassCurve) is the mass from which on the forecast
	// rate reaches ResolvedRate: halfway from a guess to always right
	// (SetMassCurve).
	Resolved    *Resolved `json:"resolved,omitempty"`
	Communities int       `json:"communityCount"`
	Trials      int       `json:"trials"`
	Seed        uint64    `json:"seed"`
	// CommunityAccuracy is the expected rate of the right community in
	// first place, in [Low, High] at 95%; Chance = 1/communities.
	// PriorRate is what naming the largest community achieves whatever
	// the data (its share of the nodes, the sources being uniform over
	// them): a ranking that learns nothing from the release reaches it.
	CommunityAccuracy float64 `json:"communityAccuracy"`
	// Exact: CommunityAccuracy is exact, not simulated (a private answer's
	// audit over every source, SetExact); Low = High = it.
	Exact     bool    `json:"exact,omitempty"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	Chance    float64 `json:"chance"`
	PriorRate float64 `json:"priorRate"`
	// In90Rate (in [In90Low, In90High]) is the rate of the source's
	// community inside the 90% set, In90Size the set's mean size and
	// In90Chance = In90Size/communities what a random set of that size gets.
	In90Rate   float64 `json:"in90Rate"`
	In90Low    float64 `json:"in90Low"`
	In90High   float64 `json:"in90High"`
	In90Size   float64 `json:"in90Size"`
	In90Chance float64 `json:"in90Chance"`
	// Ceiling is an upper bound on the mean rate of any (ε, δ)-DP
	// mechanism on this graph and partition (0 when not computed).
	Ceiling float64 `json:"ceiling,omitempty"`
	// MassNullQuantile is set only in the sweep's Memo entry of the mass
	// bound's null quantile (keptQuantile), never in a forecast row.
	MassNullQuantile float64 `json:"massNullQuantile,omitempty"`
	// AtChance is true when the interval reaches the chance level or the
	// prior rate, whichever is higher: the configuration cannot be told
	// from guessing (uniformly, or always the largest community). locate
	// calls such a release noise-dominated.
	AtChance bool `json:"atChance"`
	// BudgetBuys, when a budget was given, is how many such releases it
	// pays for under the ledger's zCDP accounting and under the exact
	// composition of the release's kind.
	BudgetBuys *privacy.BudgetBuys `json:"budgetBuys,omitempty"`
	// NoiseDominatedRate (ModePerNode, when simulated) is the share of
	// rankings the posterior rule alone would flag as noise-dominated
	// (locate's verdict without a forecast); with one, locate's verdict
	// for such a release is AtChance.
	NoiseDominatedRate float64 `json:"noiseDominatedRate,omitempty"`
	// VerdictRate (ModePerNode, plan's rows) is the share of simulated
	// releases locate would call an answer rather than "noise — not a
	// finding": its verdict (Judge) forecast on each (verdictTests) and
	// read against the curve by source mass (VerdictThreshold). nil when
	// not forecast.
	VerdictRate *float64 `json:"verdictRate,omitempty"`
	// verdictMasses are the trials' verdict masses (Simulation.verdicts);
	// rights each trial's CommunityAccuracy (1 or 0 with one source), in
	// trial order: MassCurves pairs them with its pool's mass-0 trials.
	verdictMasses []float64
	rights        []float64
	// Realized (ModeAnswer) is the share of simulated answers that were
	// right, counted rather than computed.
	Realized float64 `json:"realizedRate,omitempty"`
	// SensorModel (ModeAnswer) names the scope's sensor model the rate
	// was simulated under (SetUnderSensors): "" for the audit's exact
	// rate on noiseless readings.
	SensorModel string `json:"sensorModel,omitempty"`
	// ByCommunity is the rate per community of the source (one source
	// per trial), in community id order: which communities are answerable
	// at this ε. Nil with several sources per trial.
	ByCommunity []CommunityRate `json:"byCommunity,omitempty"`
	Millis      int64           `json:"computeMillis"`
	// Reused: the forecast was read from a Memo (an earlier run's, same
	// graph and parameters), not simulated; Millis is that run's.
	Reused bool `json:"reused,omitempty"`

	// ExactNode (plan's per-node rows) is the exact node's privacy at each
	// mass of MassCurve: a source of mass m moved one hop is the same
	// Gaussian release with sensitivity (m/α)·Δ2 (privacy.NodeNoise).
	ExactNode []privacy.ExactNode `json:"exactNode,omitempty"`
}

// Forecast modes.
const (
	ModePerNode = "per-node"
	ModeAnswer  = "private-answer"
)

// Of summarises a per-node experiment as a forecast.
func Of(r *SimulationResult) Forecast {
	f := Forecast{Mode: ModePerNode, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Delta: r.Delta, Tau: r.Tau,
		Alpha: r.Alpha, Sigma: r.Sigma, Missing: r.Missing, Communities: r.Communities, PriorRate: r.LargestShare, Trials: r.Trials, Seed: r.Seed,
		CommunityAccuracy: r.CommunityAccuracy, In90Rate: r.In90Rate, In90Size: r.In90Size,
		NoiseDominatedRate: r.NoiseDominatedRate}
	f.Low, f.High = meanInterval(r.accuracies)
	f.In90Low, f.In90High = Wilson(math.Round(r.In90Rate*float64(r.Trials)), float64(r.Trials), Z95)
	f.ByCommunity = r.byCommunity
	f.verdictMasses = r.verdictMasses
	f.rights = r.accuracies
	f.finish()
	return f
}

// OfAnswer summarises a private-answer experiment as a forecast.
func OfAnswer(r *AnswerSimulationResult) Forecast {
	c := r.Calibration
	f := Forecast{Mode: ModeAnswer, Mechanism: c.Mechanism, Epsilon: c.Epsilon, Tau: r.Tau, Alpha: c.Alpha,
		Communities: r.Communities, PriorRate: r.LargestShare, Trials: r.Trials, Seed: r.Seed,
		CommunityAccuracy: r.CommunityAccuracy, In90Rate: r.In90Rate, In90Size: r.In90Size, Realized: r.RealizedRate}
	f.Low, f.High = r.low, r.high
	f.In90Low, f.In90High = Wilson(math.Round(r.In90Rate*float64(r.Trials)), float64(r.Trials), Z95)
	f.ByCommunity = r.byCommunity
	f.finish()
	return f
}

// Guess is the rate a guess reaches: chance (a uniform guess) or the prior
// rate (always the largest community), whichever is higher.
func (f *Forecast) Guess() float64 { return math.Max(f.Chance, f.PriorRate) }

func (f *Forecast) finish() {
	if f.Communities > 0 {
		f.Chance = 1 / float64(f.Communities)
		f.In90Chance = math.Min(1, f.In90Size/float64(f.Communities))
	}
	f.AtChance = f.Low <= f.Guess()
	for i := range f.ByCommunity {
		c := &f.ByCommunity[i]
		c.Answerable = c.answerable(f.Chance)
	}
}
