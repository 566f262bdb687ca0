// Package sourceview makes the picture of a graph and where its source
// likely is (plotting.GraphView): from a ranked report over a partition (a
// simulation's trial, the demo) or from a localisation's node rows.
package sourceview

import (
	"fmt"
	"strconv"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/plotting"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// Caption is the caption line of every graph picture.
func Caption(eps, delta, tau, sigma float64) string {
	if eps > 0 {
		return fmt.Sprintf("ε = %g, δ = %g, τ = %g, σ = %.4g", eps, delta, tau, sigma)
	}
	return fmt.Sprintf("τ = %g, σ = %.4g", tau, sigma)
}

// graphEdges lists g's edges for a picture.
func graphEdges(g *laplacian.Graph) []plotting.ViewEdge {
	edges := make([]plotting.ViewEdge, 0, g.NumEdges())
	g.ForEachEdge(func(i, j int, w float64) { edges = append(edges, plotting.ViewEdge{U: i, V: j, W: w}) })
	return edges
}

// weightKind says how a picture colours an estimator's per-node weights
// and what a community's share is: the posterior's are probabilities, the
// other estimators' a recovered mass.
func weightKind(estimator string) (kind plotting.ValueKind, valueLabel, communityLabel string) {
	if estimator == recovery.NamePosterior {
		return plotting.Posterior, "", ""
	}
	return plotting.Mass, "recovered source mass (" + estimator + ")", "share of the recovered mass"
}

// OfRanking builds a graph picture from a partition with IDs 0..k−1,
// the ranked report over it and the estimator's per-node weights (nil:
// none).
func OfRanking(g *laplacian.Graph, part []int, rep *community.Report, estimator string, weights []float64, source int) plotting.GraphView {
	k := 0
	for _, c := range part {
		k = max(k, c+1)
	}
	comms := make([]plotting.ViewCommunity, k)
	for c := range comms {
		comms[c].Name = strconv.Itoa(c)
	}
	if rep != nil {
		for _, r := range rep.Communities {
			if r.ID >= 0 && r.ID < k {
				comms[r.ID] = plotting.ViewCommunity{Name: r.Name, Probability: r.Share}
			}
		}
	}
	value := make([]float64, g.N())
	copy(value, weights)
	kind, label, commLabel := weightKind(estimator)
	return plotting.GraphView{N: g.N(), Keys: g.Keys(), Edges: graphEdges(g), Part: part, Communities: comms,
		CommunityLabel: commLabel, Value: value, Kind: kind, ValueLabel: label, Source: source}
}

// OfLocate builds a graph picture from a localisation: each node's
// community and its probability come from the result's node rows.
// released, when non-nil, colours the nodes by the released value instead
// of the posterior.
func OfLocate(g *laplacian.Graph, loc *graphcloak.LocateResult, released []float64) plotting.GraphView {
	index := map[string]int{}
	var comms []plotting.ViewCommunity
	part := make([]int, len(loc.Nodes))
	value := make([]float64, len(loc.Nodes))
	for i, nr := range loc.Nodes {
		c, ok := index[nr.Community]
		if !ok {
			c = len(comms)
			index[nr.Community] = c
			comms = append(comms, plotting.ViewCommunity{Name: nr.Community, Probability: nr.Probability})
		}
		part[i], value[i] = c, nr.Weight
	}
	kind, label, commLabel := weightKind(loc.Estimator)
	if released != nil {
		copy(value, released)
		kind, label = plotting.Signed, "released value"
	}
	return plotting.GraphView{N: g.N(), Keys: g.Keys(), Edges: graphEdges(g), Part: part, Communities: comms,
		CommunityLabel: commLabel, Value: value, Kind: kind, ValueLabel: label, Source: -1}
}

// Example draws trial 0 of a simulation on g (its example) to path: the
// ranking, the planted source and the verdict when noise dominates.
func Example(path string, g *laplacian.Graph, res *forecast.SimulationResult) error {
	ex := res.Example
	if ex == nil {
		return fmt.Errorf("experiment graph: no trial to draw")
	}
	source := -1
	if len(ex.Sources) > 0 {
		source = ex.Sources[0]
	}
	v := OfRanking(g, ex.Partition, ex.Report, res.Estimator, ex.Weights, source)
	v.Title = fmt.Sprintf("%s estimator, trial 0 of %d", res.Estimator, res.Trials)
	if ex.Report.NoSource {
		v.Title += ": no detectable source"
	}
	ratio := ex.Report.PosteriorToPrior(g.N())
	if !ex.Report.NoSource && ex.Report.NoiseDominated(g.N()) {
		v.Verdict = graphcloak.PosteriorNoiseReason(ratio)
	}
	v.Caption = Caption(res.Epsilon, res.Delta, res.Tau, res.Sigma)
	return plotting.GraphPicture(path, v)
}

// Locate draws localisation lr of the graph named graph to path: the
// located communities, nodes coloured by the posterior or, with
// plotValue "released", by the released values.
func Locate(path, graph, plotValue string, lr graphcloak.LocateRequest, res *graphcloak.LocateResult) error {
	g, rel := lr.Graph, lr.Released
	var released []float64
	if plotValue == "released" {
		released = make([]float64, g.N())
		for i, k := range rel.Keys {
			if j, ok := g.IndexOf(k); ok && i < len(rel.Values) {
				released[j] = rel.Values[i]
			}
		}
	}
	v := OfLocate(g, res, released)
	v.Title = fmt.Sprintf("%s: likely source communities (%s estimator)", graph, res.Estimator)
	if res.Report.NoSource {
		v.Title = fmt.Sprintf("%s: no detectable source", graph)
	}
	v.Verdict = res.NoiseReason
	v.Caption = Caption(rel.Meta.Epsilon, rel.Meta.Delta, lr.Tau, res.Sigma)
	return plotting.GraphPicture(path, v)
}
