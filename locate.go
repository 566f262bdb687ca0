package graphcloak

import (
	"context"
	"encoding/csv"
	"fmt"
	"github.com/graphcloak/graphcloak/internal/cancel"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// LocateRequest recovers sources from released values and ranks the source
// communities.
type LocateRequest struct {
	Graph *laplacian.Graph
	// Released are the published values ỹ (any key order; every node of
	// Graph must be present) with their σ in Released.Meta.Sigma.
	Released *privacy.Released
	// Tau is the τ the values were released with (M = exp(−τL)).
	Tau float64
	// Estimator is a recovery estimator name; "" means recovery.Default.
	Estimator string
	// Sources is the number of sources k (0 means 1).
	Sources int
	// Partition and Names give the communities (community.FromAssignment);
	// nil Partition means Leiden with Resolution (default 1) and Seed.
	Partition  []int
	Names      []string
	Resolution float64
	Seed       uint64
	// Model tunes the recovery model (zero: defaults).
	Model recovery.GraphOptions
	// Progress, if non-nil, reports the "recovery" step and the evidence
	// test's null draws ("evidence test").
	Progress Progress
}

// finite maps NaN (nothing detected) to 0 for JSON.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// NodeResult is what locate writes for one node.
type NodeResult struct {
	Key string `json:"key"`
	// Mass is the recovered source mass f̂_i (0 when no source was detected).
	Mass float64 `json:"mass"`
	// Weight is what the ranking aggregates: the posterior probability of
	// the node being the source, or Mass for non-probabilistic estimators.
	Weight float64 `json:"weight"`
	// Community is the node's community name, Probability that
	// community's share of the weight and Rank its rank (1 = most likely;
	// 0 when no source was detected).
	Community   string  `json:"community"`
	CommunityID int     `json:"communityId"`
	Probability float64 `json:"probability"`
	Rank        int     `json:"rank"`
}

// LocateResult is the outcome of Locate.
type LocateResult struct {
	Estimator string             `json:"estimator"`
	Status    string             `json:"status"` // recovery.Status: solved, infeasible, no-source
	Sigma     float64            `json:"sigma"`
	Report    *community.Report  `json:"report"`
	Nodes     []NodeResult       `json:"nodes"`
	Estimate  *recovery.Estimate `json:"-"`
	// NoiseDominated is true when the posterior cannot be told from the
	// prior: the top community's probability is less than
	// community.NoiseRatio times its prior (its share of the nodes;
	// PosteriorToPrior). The ranking then says little more than the
	// community sizes and must not be read as a finding. NoisePValue is
	// the evidence test's p-value for "a source at all" against pure
	// noise (recovery.EvidenceTest), reported beside it.
	NoiseDominated   bool    `json:"noiseDominated"`
	PosteriorToPrior float64 `json:"posteriorToPrior"`
	NoisePValue      float64 `json:"noisePValue"`
	// NoiseBasis says what the verdict rests on (NoiseByPosterior here;
	// a caller holding a utility forecast replaces it by the release's
	// verdict, NoiseByForecast) and NoiseReason says it in a sentence
	// ("" when not noise-dominated).
	NoiseBasis    string `json:"noiseBasis"`
	NoiseReason   string `json:"noiseReason,omitempty"`
	ComputeMillis int64  `json:"computeMillis"`
}

// What a noise verdict rests on.
const (
	// NoiseByPosterior: this ranking's top community against its prior
	// (community.NoiseThreshold).
	NoiseByPosterior = "posterior"
	// NoiseByForecast: releases like this one, simulated on the same graph
	// with the same σ, τ and estimator; noise-dominated when their rate of
	// the right community cannot be told from chance at 95%.
	NoiseByForecast = "forecast"
)

// PosteriorNoiseReason is the sentence of a posterior verdict: the top
// community is only ratio times its prior.
func PosteriorNoiseReason(ratio float64) string {
	return fmt.Sprintf("noise-dominated: the top community is only %.3g× its prior — not a finding", ratio)
}

// Locate aligns the released values with the graph, runs the recovery
// estimator on ỹ with M = exp(−τL) and the release's σ, and ranks the
// communities by the recovered weight (community.Rank). An infeasible
// problem or a no-source estimate is reported as "no detectable source",
// never as a made-up community. It holds no mathematics of its own.
func Locate(ctx context.Context, req LocateRequest) (*LocateResult, error) {
	start := time.Now()
	g := req.Graph
	if g == nil || g.N() == 0 {
		return nil, laplacian.ErrEmptyGraph
	}
	if req.Released == nil {
		return nil, &ParamError{Param: "released", Reason: "is required"}
	}
	sigma := req.Released.Meta.Sigma
	if math.IsNaN(sigma) || math.IsInf(sigma, 0) || sigma <= 0 {
		return nil, &ParamError{Param: "sigma", Reason: fmt.Sprintf("of the release must be finite and > 0, got %v", sigma)}
	}
	if math.IsNaN(req.Tau) || math.IsInf(req.Tau, 0) || req.Tau <= 0 {
		return nil, &ParamError{Param: "tau", Reason: fmt.Sprintf("must be finite and > 0, got %v", req.Tau)}
	}
	if req.Sources < 0 {
		return nil, &ParamError{Param: "sources", Reason: fmt.Sprintf("must be ≥ 1, got %d", req.Sources)}
	}
	y, rows, err := ReleasedRows(g, req.Released)
	if err != nil {
		return nil, err
	}
	est, err := recovery.ByName(req.Estimator)
	if err != nil {
		return nil, err
	}
	est = recovery.ForRelease(est)
	part, names := req.Partition, req.Names
	if part == nil {
		res := req.Resolution
		if res == 0 {
			res = 1
		}
		if part, err = community.Leiden(g, community.LeidenOptions{Resolution: res, Seed: req.Seed}); err != nil {
			return nil, err
		}
		names = nil
	} else if len(part) != g.N() {
		return nil, &ParamError{Param: "partition", Reason: fmt.Sprintf("has %d entries for %d nodes", len(part), g.N())}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	if req.Progress != nil {
		req.Progress("recovery", 0, 1)
	}
	var pValue float64
	e, err := cancel.Run(ctx, func() (*recovery.Estimate, error) {
		model, err := recovery.NewGraphModel(g, req.Tau, req.Model)
		if err == nil && rows != nil {
			model, err = model.Rows(rows) // only the sensors that reported
		}
		if err != nil {
			return nil, err
		}
		prob := model.Problem(y, sigma)
		prob.Sources = max(req.Sources, 1)
		e, err := recovery.Solve(est, prob)
		if err == nil {
			test := recovery.EvidenceTest{Seed: req.Seed, Partition: part}
			if req.Progress != nil {
				req.Progress("recovery", 1, 1)
				test.Progress = func(done, total int) { req.Progress("evidence test", done, total) }
			}
			_, pValue = test.PValue(prob)
		}
		return e, err
	})
	if err != nil {
		return nil, err
	}

	n := g.N()
	mass := make([]float64, n)
	weights := make([]float64, n)
	noSource := e.NoSource()
	if !noSource {
		copy(mass, e.F)
		copy(weights, e.Weights())
	}
	rep := community.Rank(g, part, names, weights, noSource)
	share := map[int]community.Ranked{}
	for _, c := range rep.Communities {
		share[c.ID] = c
	}
	ratio := rep.PosteriorToPrior(n)
	out := &LocateResult{Estimator: est.Name(), Status: e.Status.String(), Sigma: sigma, Report: rep,
		Nodes: make([]NodeResult, n), Estimate: e, NoisePValue: pValue, PosteriorToPrior: finite(ratio),
		NoiseDominated: rep.NoiseDominated(n), NoiseBasis: NoiseByPosterior}
	if out.NoiseDominated {
		out.NoiseReason = PosteriorNoiseReason(ratio)
	}
	for i := 0; i < n; i++ {
		c := part[i]
		name := strconv.Itoa(c)
		if names != nil {
			name = names[c]
		}
		r := share[c] // zero when no source: probability 0, rank 0
		out.Nodes[i] = NodeResult{Key: g.Key(i), Mass: mass[i], Weight: weights[i], Community: name,
			CommunityID: c, Probability: r.Share, Rank: r.Rank}
	}
	out.ComputeMillis = time.Since(start).Milliseconds()
	return out, nil
}

// WriteNodesCSV writes a localisation's node rows as CSV under the header
// key,mass,weight,community,probability,rank.
func WriteNodesCSV(w io.Writer, nodes []NodeResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"key", "mass", "weight", "community", "probability", "rank"})
	for _, n := range nodes {
		_ = cw.Write([]string{n.Key, strconv.FormatFloat(n.Mass, 'g', -1, 64), strconv.FormatFloat(n.Weight, 'g', -1, 64),
			n.Community, strconv.FormatFloat(n.Probability, 'g', -1, 64), strconv.Itoa(n.Rank)})
	}
	cw.Flush()
	return cw.Error()
}

// ReleasedRows returns the released values in graph order and, for a
// local release with missing sensors (ReleaseMeta.Missing), the graph
// indices of the nodes that reported, in the order of y (nil: every node
// reported; then y holds every node's value).
//
// Missing sensors. The nodes that did not report are left out of the
// fit: recovery uses the sub-matrix P_S·exp(−τL) of the rows that
// reported, with every node still a candidate source (recovery.Model.Rows).
// Nothing is imputed for them. The guarantee is unchanged (a release of a
// subset of the noisy values is post-processing of the whole); the
// recovery is weaker, by the information the missing rows would carry.
func ReleasedRows(g *laplacian.Graph, rel *privacy.Released) ([]float64, []int, error) {
	byKey := make(map[string]float64, len(rel.Keys))
	for i, k := range rel.Keys {
		byKey[k] = rel.Values[i]
	}
	if len(rel.Meta.Missing) == 0 || len(byKey) == g.N() {
		y, err := ValuesByKey(g, byKey)
		return y, nil, err
	}
	missing := make(map[string]bool, len(rel.Meta.Missing))
	for _, k := range rel.Meta.Missing {
		missing[k] = true
	}
	var y []float64
	var rows []int
	for i := 0; i < g.N(); i++ {
		k := g.Key(i)
		v, ok := byKey[k]
		switch {
		case ok:
			y, rows = append(y, v), append(rows, i)
		case !missing[k]:
			return nil, nil, &ValuesError{Reason: fmt.Sprintf("node %q has no released value and is not among the release's missing sensors", k)}
		}
	}
	if len(rows) != len(byKey) {
		return nil, nil, &ValuesError{Reason: fmt.Sprintf("%d released values are for nodes outside the graph", len(byKey)-len(rows))}
	}
	if len(rows) == 0 {
		return nil, nil, &ValuesError{Reason: "no sensor reported: nothing to locate from"}
	}
	return y, rows, nil
}
