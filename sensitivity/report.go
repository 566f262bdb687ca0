package sensitivity

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Report is a Δ2 computation as a person or a script reads it: the
// result with the maximising pair named by node keys (or grid indices on
// the line), what was computed on, and how long it took. Its JSON is the
// sensitivity command's output.
type Report struct {
	Delta2    float64 `json:"delta2"`
	Certified bool    `json:"certified"`
	Exact     bool    `json:"exact"`
	Method    string  `json:"method"`
	Slack     float64 `json:"slack"`
	// RelativeSlack is slack/Δ2; "exact" needs it ≤ 1e-6.
	RelativeSlack float64   `json:"relativeSlack"`
	Nodes         int       `json:"nodeCount"`
	Edges         int       `json:"relationshipCount"`
	Components    int       `json:"components"`
	Edge          []any     `json:"edge"` // maximising pair: node keys (graph) or grid indices j, j+1 (line)
	Graph         string    `json:"graph,omitempty"`
	Tau           *float64  `json:"tau"` // the graph's τ, or the line's (the paper's T)
	Alpha         float64   `json:"alpha"`
	N             *int      `json:"n,omitempty"`
	M             *int      `json:"m,omitempty"`
	Kappa2        JSONFloat `json:"kappa2"`
	Seconds       float64   `json:"seconds"`
	// Shard: a sharded run's share (delta2 bounds its edges only;
	// certified and exact are false until merged); Shards: a merge's N.
	Shard  *ShardReport `json:"shard,omitempty"`
	Shards int          `json:"shards,omitempty"`
	// DuplicateEdges says how the graph's input rows that named one pair
	// more than once were merged (nil: none were).
	DuplicateEdges *laplacian.Merges `json:"duplicateEdges,omitempty"`
	// SelfLoopsSkipped counts the input's self-loops, left out of the
	// graph (laplacian.FromEdges; 0: none).
	SelfLoopsSkipped int `json:"selfLoopsSkipped,omitempty"`
	// Reused: Δ2 was not computed but read from a certificate a store
	// kept (Method then says "certificate:" and the method that computed
	// it; kappa2 is null).
	Reused bool `json:"reused,omitempty"`
}

// ShardReport is a sharded run's share in its Report.
type ShardReport struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Scheme: how the work divides — columns or lanczos (by edges), whole
	// (a method that is not divided: shard 0 computes it all).
	Scheme string `json:"scheme"`
	Empty  bool   `json:"empty,omitempty"` // whole: another shard holds the result
	// Lower is a proven lower bound on Δ2 of the whole graph; delta2 is
	// a proven upper bound over this shard's edges only.
	Lower    float64 `json:"lower"`
	Complete bool    `json:"complete"` // every edge of the shard settled
	Save     string  `json:"save"`     // the partial certificate written
}

// JSONFloat encodes NaN as null and ±Inf as the strings "+Inf"/"-Inf",
// which encoding/json cannot represent as numbers.
type JSONFloat float64

func (f JSONFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte("null"), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return []byte(fmt.Sprintf("%v", v)), nil
}

// NewReport is the report of s, computed in seconds; key names a node
// index of the maximising pair (nil: the pair is left empty).
func NewReport(s Result, seconds float64, key func(int) any) Report {
	r := Report{Delta2: s.Delta2, Certified: s.Certified, Exact: s.Exact, Method: s.Method, Slack: s.Slack,
		RelativeSlack: relativeSlack(s.Slack, s.Delta2), Nodes: s.Nodes, Edges: s.Edges, Components: s.Components,
		Edge: []any{}, Alpha: s.Alpha, Kappa2: JSONFloat(s.Kappa2), Seconds: seconds}
	if s.Edge[0] >= 0 && key != nil {
		r.Edge = []any{key(s.Edge[0]), key(s.Edge[1])}
	}
	return r
}

// NewShardReport is the report of a shard's share p, the shard index of
// count saved at save, computed in seconds; key names a node index.
func NewShardReport(p Partial, index, count int, save string, seconds float64, key func(int) any) Report {
	r := Report{Delta2: p.Delta2, Method: p.Method, Nodes: p.Nodes, Edges: p.Edges, Components: p.Components,
		Edge: []any{}, Alpha: p.Alpha, Kappa2: JSONFloat(math.NaN()), Seconds: seconds,
		Shard: &ShardReport{Index: index, Count: count, Scheme: p.Scheme, Empty: p.Empty, Lower: p.Lower,
			Complete: p.Complete, Save: save}}
	if p.Edge[0] >= 0 {
		r.Edge = []any{key(p.Edge[0]), key(p.Edge[1])}
	}
	return r
}

// NewMergeReport is the report of the certificate c merged from parts in
// seconds.
func NewMergeReport(c Certificate, parts []PartialCertificate, seconds float64) Report {
	tau := c.Tau
	r := Report{Delta2: c.Delta2, Certified: true, Exact: c.Exact, Method: c.Method, Slack: c.Slack,
		RelativeSlack: relativeSlack(c.Slack, c.Delta2), Nodes: c.Graph.Nodes, Edges: c.Graph.Edges,
		Components: parts[0].Components, Edge: []any{}, Tau: &tau, Alpha: c.Alpha,
		Kappa2: JSONFloat(math.NaN()), Seconds: seconds, Shards: parts[0].Shards}
	if c.Edge[0] != "" {
		r.Edge = []any{c.Edge[0], c.Edge[1]}
	}
	return r
}

// relativeSlack is slack/Δ2 (0 when Δ2 is 0).
func relativeSlack(slack, delta2 float64) float64 {
	if delta2 > 0 {
		return slack / delta2
	}
	return 0
}

// PlanReport is a dry run's report: the method Graph would use on a graph
// and its modelled cost.
type PlanReport struct {
	DryRun     bool    `json:"dryRun"`
	Graph      string  `json:"graph"`
	Nodes      int     `json:"nodeCount"`
	Edges      int     `json:"relationshipCount"`
	Components int     `json:"components"`
	Tau        float64 `json:"tau"`
	Alpha      float64 `json:"alpha"`
	Method     string  `json:"method"` // dense, columns, lanczos, slow-modes or panels
	// SlowModesFirst: Method is slow-modes (modelled) and the panels
	// follow when it needs more than 256 modes.
	SlowModesFirst  bool    `json:"slowModesFirst,omitempty"`
	SecondsEstimate float64 `json:"secondsEstimate"`
	// BytesEstimate is the modelled peak resident memory of the run: the
	// computation's model plus the process's peak so far (binary,
	// runtime, the loaded graph).
	BytesEstimate int64   `json:"bytesEstimate"`
	Seconds       float64 `json:"seconds"` // the dry run's own time
	// TimeBudgetSeconds echoes the time budget (absent without one): a
	// run modelled to take longer stops there with a proven upper bound.
	TimeBudgetSeconds float64 `json:"timeBudgetSeconds,omitempty"`
	// Reused: the work store holds an exact Δ2 for this graph, τ and α
	// that the run reuses (job.WorkCache.PlanCertify): nothing is
	// computed, SecondsEstimate is 0 and Method what a computation would
	// use.
	Reused bool `json:"reused,omitempty"`
}
