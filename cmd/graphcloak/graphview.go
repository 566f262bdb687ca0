package main

import (
	"fmt"
	"strconv"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/plotting"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// privacyCaption is the caption line of every graph picture.
func privacyCaption(eps, delta, tau, sigma float64) string {
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

// viewOfRanking builds a graph picture from a partition with IDs 0..k−1,
// the ranked report over it and the estimator's per-node weights (nil:
// none).
func viewOfRanking(g *laplacian.Graph, part []int, rep *community.Report, estimator string, weights []float64, source int) plotting.GraphView {
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

// viewOfLocate builds a graph picture from a localisation: each node's
// community and its probability come from the result's node rows.
// released, when non-nil, colours the nodes by the released value instead
// of the posterior.
func viewOfLocate(g *laplacian.Graph, loc *graphcloak.LocateResult, released []float64) plotting.GraphView {
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

// checkPlotPath refuses a --plot file whose format cannot be written
// (exit 3) before any work is done; "" means no picture.
func checkPlotPath(path string) error {
	if path == "" {
		return nil
	}
	if err := plotting.CheckImagePath(path); err != nil {
		return inputErrorf("--plot: %v", err)
	}
	return nil
}
