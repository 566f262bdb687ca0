package forecast

import (
	"fmt"
	"strconv"
)

// CommunityRate is a forecast's rate for the sources of one community: of
// the simulated sources that lay in it, the share whose community came
// first (per-node: the ranking's top community; private answer: the
// published one, its probability exact for the mechanism), in [Low, High]
// at 95% (Wilson).
type CommunityRate struct {
	// Community is its name (a communities file's or a property's), else
	// its id in the forecast's partition.
	Community string `json:"community"`
	// Size is its number of nodes; Trials the simulated sources in it.
	Size   int     `json:"size"`
	Trials int     `json:"trials"`
	Rate   float64 `json:"rate"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	// NamedElsewhere is the rate the mode names this community when the
	// source lies in another (ElsewhereTrials sources), ElsewhereHigh its
	// 95% upper end; ElsewhereTrials 0: not known (an audit's exact rates).
	NamedElsewhere  float64 `json:"namedElsewhere"`
	ElsewhereHigh   float64 `json:"namedElsewhereHigh"`
	ElsewhereTrials int     `json:"elsewhereTrials,omitempty"`
	// Answerable: Low is above chance (1/communities) and above
	// ElsewhereHigh: at this ε a source there is named more often than a
	// uniform guess would name it, and more often than the community is
	// named when the source is not there — a mode that names it whatever
	// the source (always the largest, say) tells nothing about it.
	Answerable bool `json:"answerable"`
}

// answerable is CommunityRate.Answerable against chance.
func (r *CommunityRate) answerable(chance float64) bool {
	return r.Trials > 0 && r.Low > chance && (r.ElsewhereTrials == 0 || r.Low > r.ElsewhereHigh)
}

// setNamedElsewhere sets each community's NamedElsewhere from the trials
// (comms: each trial's source community): named(t, add) adds trial t's
// chance of naming community c (a ranking's top: 1 for it; a mechanism:
// its probability of each).
func setNamedElsewhere(out []CommunityRate, comms []int, named func(t int, add func(c int, p float64))) {
	sums := make([]float64, len(out))
	for t, src := range comms {
		named(t, func(c int, p float64) {
			if c >= 0 && c < len(out) && c != src {
				sums[c] += p
			}
		})
	}
	for c := range out {
		r := &out[c]
		r.ElsewhereTrials = len(comms) - r.Trials
		if r.ElsewhereTrials > 0 {
			r.NamedElsewhere = sums[c] / float64(r.ElsewhereTrials)
			_, r.ElsewhereHigh = Wilson(sums[c], float64(r.ElsewhereTrials), Z95)
		}
	}
}

// byCommunity splits per-trial scores (in [0, 1]) by the community of
// each trial's source (comms), for the k communities of the canonical
// partition part, named by names (nil: their ids).
func byCommunity(comms []int, scores []float64, part []int, names []string, k int) []CommunityRate {
	out := make([]CommunityRate, k)
	for c := range out {
		out[c].Community = strconv.Itoa(c)
		if c < len(names) {
			out[c].Community = names[c]
		}
	}
	for _, c := range part {
		out[c].Size++
	}
	sums := make([]float64, k)
	for t, c := range comms {
		out[c].Trials++
		sums[c] += scores[t]
	}
	for c := range out {
		r := &out[c]
		r.Low, r.High = 0, 1
		if r.Trials > 0 {
			r.Rate = sums[c] / float64(r.Trials)
			r.Low, r.High = Wilson(sums[c], float64(r.Trials), Z95)
		}
	}
	return out
}

// ExactByCommunity is the rate per community of exact per-node rates
// (perNode[s]: the chance that source s's community comes first, an
// audit's), in the canonical order and with the names of e's partition,
// as the simulated forecasts list theirs: every node is counted, so
// Trials is the community's size and the interval is the rate itself.
func ExactByCommunity(e Simulation, perNode []float64) ([]CommunityRate, error) {
	part, names, k, err := e.communities()
	if err != nil {
		return nil, err
	}
	if len(perNode) != len(part) {
		return nil, &ParamError{"perNode", len(perNode), fmt.Sprintf("has the wrong length (graph has %d nodes)", len(part))}
	}
	out := byCommunity(part, perNode, part, names, k)
	for i := range out {
		out[i].Low, out[i].High = out[i].Rate, out[i].Rate
	}
	return out, nil
}

// AnswerAudit is what a private answer's audit over every source computed
// at one calibration (answer.Model.Audit, passed): its mechanism, ε and
// α, the accuracy, each node's chance that its own community is named
// (PerNode) and the analyst's 90 % set's rate and size.
type AnswerAudit struct {
	Mechanism          string
	Epsilon, Alpha     float64
	Accuracy           float64
	PerNode            []float64
	In90Rate, In90Size float64
}

// ExactAnswer is the private answer's forecast on e's graph and partition
// read off its audit instead of simulated: every number exact (no
// interval), every node a trial, the realized rate the accuracy itself
// (what answers are right on average). The caller sets its Ceiling.
func ExactAnswer(e Simulation, a AnswerAudit) (Forecast, error) {
	part, _, k, err := e.communities()
	if err != nil {
		return Forecast{}, err
	}
	by, err := ExactByCommunity(e, a.PerNode)
	if err != nil {
		return Forecast{}, err
	}
	f := Forecast{Mode: ModeAnswer, Mechanism: a.Mechanism, Epsilon: a.Epsilon, Delta: e.Delta, Tau: e.Tau, Alpha: a.Alpha,
		Communities: k, PriorRate: largestShare(part), Trials: len(a.PerNode), Seed: e.Seed,
		In90Rate: a.In90Rate, In90Low: a.In90Rate, In90High: a.In90Rate, In90Size: a.In90Size, Realized: a.Accuracy}
	f.SetExact(a.Accuracy, by)
	return f, nil
}

// SetExact makes f's rate an exact one (the private answer's audit, over
// every source): accuracy without an interval and the rates per
// community by; its verdict and answerable communities follow.
func (f *Forecast) SetExact(accuracy float64, by []CommunityRate) {
	f.CommunityAccuracy, f.Low, f.High, f.Exact = accuracy, accuracy, accuracy, true
	f.ByCommunity = by
	f.finish()
}

// SetUnderSensors makes f's rate the one simulated under a sensor model
// (named model): right[t] is trial t's chance of the right community with
// its source sources[t] (the plan job's sensorTrials), own[s] source s's
// on noiseless readings (the audit's, over every node) — the control
// variate: the trials only estimate what the sensors take off the exact
// rate (controlledRate). The rates per community are left out (the
// audit's are of noiseless readings); the 90% set's stay the audit's.
func (f *Forecast) SetUnderSensors(model string, own []float64, sources []int, right []float64) {
	exact := 0.0
	for _, v := range own {
		exact += v / float64(len(own))
	}
	diffs := make([]float64, len(sources))
	for t, s := range sources {
		diffs[t] = right[t] - own[s]
	}
	f.CommunityAccuracy, f.Low, f.High = controlledRate(exact, diffs)
	f.Realized, f.Trials, f.Exact, f.SensorModel = f.CommunityAccuracy, len(sources), false, model
	f.ByCommunity = nil
	f.finish()
}
