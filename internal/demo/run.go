package demo

import (
	"context"
	"strconv"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Parameters of the demo's errors (Spec); its τ is graphcloak.ParamTau.
const (
	ParamSource  errkind.Param = "source"
	ParamEpsilon errkind.Param = "epsilon"
	ParamDelta   errkind.Param = "delta"
)

// Spec is the demo on a generated graph: a unit source planted at one
// node, its readings released and the source located (ReleaseAndLocate), among the
// generator's planted communities or, when it plants none, Leiden's.
type Spec struct {
	// Graph is a generator spec (laplacian.Generate); Source the key of
	// the node holding the unit source ("": the graph's first node).
	Graph, Source       string
	Tau, Epsilon, Delta float64
	// Epoch names the release in its throw-away ledger.
	Epoch    string
	Progress graphcloak.Progress
}

// Summary is what a demo found, as the demo command reports it.
type Summary struct {
	Graph             string  `json:"graph"`
	NodeCount         int     `json:"nodeCount"`
	RelationshipCount int     `json:"relationshipCount"`
	Source            string  `json:"source"`
	SourceCommunity   string  `json:"sourceCommunity"`
	Tau               float64 `json:"tau"`
	Epsilon           float64 `json:"epsilon"`
	Delta             float64 `json:"delta"`
	Delta2            float64 `json:"delta2"`
	SensitivityMethod string  `json:"sensitivityMethod"`
	Sigma             float64 `json:"sigma"`
	Rho               float64 `json:"rho"`
	Estimator         string  `json:"estimator"`
	Status            string  `json:"status"`
	TopCommunityRight bool    `json:"topCommunityIsSource"`
	// NoiseReason, when not empty, is locate's noise verdict on the
	// ranking, as the picture states it under its title.
	NoiseReason   string            `json:"noiseReason,omitempty"`
	Report        *community.Report `json:"report"`
	Plot          string            `json:"plot,omitempty"`
	ComputeMillis int64             `json:"computeMillis"`
}

// Result is a demo's outcome: its summary, and the graph, communities
// and localisation it was found on (what its picture shows).
type Result struct {
	Summary *Summary
	// Communities says where Partition comes from: "planted" (the
	// generator's) or "Leiden".
	Communities string
	Graph       *laplacian.Graph
	Partition   []int
	// Source is the planted source's node index.
	Source int
	Locate *graphcloak.LocateResult
}

// SourceCommunity is the community of the planted source.
func (r *Result) SourceCommunity() int { return r.Partition[r.Source] }

// Check refuses a spec whose τ, ε or δ is out of range (τ > 0, ε > 0,
// 0 < δ < 1, each finite) as bad input naming the parameter.
func (s Spec) Check() error {
	for _, p := range []struct {
		name errkind.Param
		v    float64
		ok   bool
	}{{graphcloak.ParamTau, s.Tau, s.Tau > 0}, {ParamEpsilon, s.Epsilon, s.Epsilon > 0}, {ParamDelta, s.Delta, s.Delta > 0 && s.Delta < 1}} {
		if !p.ok || p.v != p.v || p.v > 1e300 {
			return errkind.Inputf("%v: invalid value %v", p.name, p.v)
		}
	}
	return nil
}

// Run generates spec's graph, plants the source, and releases and
// locates it (ReleaseAndLocate). A spec out of range (Check) and a source that is
// not a node of the graph are bad input naming the parameter.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if err := spec.Check(); err != nil {
		return nil, err
	}
	g, part, err := laplacian.Generate(spec.Graph)
	if err != nil {
		return nil, err
	}
	if spec.Source == "" {
		spec.Source = g.Key(0)
	}
	src, ok := g.IndexOf(spec.Source)
	if !ok {
		return nil, errkind.Inputf("%v: %q is not a node of %s (keys %s..%s)", ParamSource, spec.Source, spec.Graph, g.Key(0), g.Key(g.N()-1))
	}
	run := &Result{Communities: "planted", Graph: g, Partition: part, Source: src}
	if part == nil {
		run.Communities = "Leiden"
		if run.Partition, err = community.Leiden(g, community.LeidenOptions{Seed: 42}); err != nil {
			return nil, err
		}
	}
	rel, loc, err := ReleaseAndLocate(ctx, Request{Graph: g, Source: src, Partition: run.Partition, Tau: spec.Tau,
		Epsilon: spec.Epsilon, Delta: spec.Delta, Epoch: spec.Epoch, Progress: spec.Progress})
	if err != nil {
		return nil, err
	}
	rep := loc.Report
	run.Locate = loc
	run.Summary = &Summary{Graph: spec.Graph, NodeCount: g.N(), RelationshipCount: g.NumEdges(), Source: spec.Source,
		SourceCommunity: strconv.Itoa(run.SourceCommunity()), Tau: spec.Tau, Epsilon: spec.Epsilon, Delta: spec.Delta,
		Delta2: rel.Sensitivity.Delta2, SensitivityMethod: rel.Sensitivity.Method, Sigma: rel.Released.Meta.Sigma,
		Rho: rel.Released.Meta.Rho, Estimator: loc.Estimator, Status: loc.Status, Report: rep, NoiseReason: loc.NoiseReason,
		ComputeMillis: rel.SensitivityMillis + rel.ReleaseMillis + loc.ComputeMillis}
	run.Summary.TopCommunityRight = !rep.NoSource && len(rep.Communities) > 0 && rep.Communities[0].ID == run.SourceCommunity()
	return run, nil
}
