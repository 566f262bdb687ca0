package community

import (
	"fmt"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Summary is what a detection did: the graph, the detector and its
// parameters, the communities found (count, sizes and modularity), the
// peak memory estimated and the timings, and where the partition went.
// It is the communities command's JSON.
type Summary struct {
	Graph                 string  `json:"graph"`
	NodeCount             int     `json:"nodeCount"`
	RelationshipCount     int     `json:"relationshipCount"`
	Method                string  `json:"method"`
	Resolution            float64 `json:"resolution"`
	RandomSeed            int64   `json:"randomSeed"`
	CommunityCount        int     `json:"communityCount"`
	CommunitySizes        []int   `json:"communitySizes"` // largest first
	Modularity            float64 `json:"modularity"`
	EstimatedBytes        int64   `json:"estimatedBytes"` // estimated peak memory (PeakBytes)
	LoadMillis            int64   `json:"loadMillis"`
	ReadPath              string  `json:"readPath,omitempty"` // Neo4j: "procedure" (graphcloak's plugin) or "cypher"
	ReadNote              string  `json:"readNote,omitempty"` // why the installed plugin was not used (printed here, not logged)
	ComputeMillis         int64   `json:"computeMillis"`
	WriteProperty         string  `json:"writeProperty,omitempty"`
	NodePropertiesWritten int     `json:"nodePropertiesWritten"`
	WriteMillis           int64   `json:"writeMillis"`
	Out                   string  `json:"out,omitempty"`
	// Nodes is the partition itself, when it goes with the summary.
	Nodes []NodeCommunity `json:"nodes,omitempty"`

	// DuplicateEdges says how input rows naming one pair more than once
	// were merged (nil: none were).
	DuplicateEdges *laplacian.Merges `json:"duplicateEdges,omitempty"`
	// SelfLoopsSkipped counts the input's self-loops, left out of the
	// graph (laplacian.FromEdges; 0: none).
	SelfLoopsSkipped int `json:"selfLoopsSkipped,omitempty"`
}

// NodeCommunity is one node's community.
type NodeCommunity struct {
	Node      string `json:"node"`
	Community int    `json:"community"`
}

// Summarise is the summary of partition part of g (named graph) found by
// method at resolution: its communities' sizes, largest first, their
// count and the partition's modularity.
func Summarise(graph string, g *laplacian.Graph, part []int, method string, resolution float64) *Summary {
	sizes := Sizes(part)
	s := &Summary{Graph: graph, NodeCount: g.N(), RelationshipCount: g.NumEdges(), Method: method, Resolution: resolution,
		CommunityCount: len(sizes), CommunitySizes: sizes, Modularity: Modularity(g, part, resolution)}
	if m := g.Merges(); m.Merged > 0 {
		s.DuplicateEdges = &m
	}
	s.SelfLoopsSkipped = g.Merges().SelfLoops
	return s
}

// Nodes lists partition part of g node by node, by key.
func Nodes(g *laplacian.Graph, part []int) []NodeCommunity {
	nodes := make([]NodeCommunity, len(part))
	for i, c := range part {
		nodes[i] = NodeCommunity{Node: g.Key(i), Community: c}
	}
	return nodes
}

// MemoryEstimate is a detection's estimated peak memory on a graph,
// before it runs, and the order of its time (DetectionSeconds).
type MemoryEstimate struct {
	Graph             string  `json:"graph"`
	NodeCount         int     `json:"nodeCount"`
	RelationshipCount int     `json:"relationshipCount"`
	EstimatedBytes    int64   `json:"estimatedBytes"`
	Estimated         string  `json:"estimated"` // the same, readable
	EstimatedSeconds  float64 `json:"estimatedSeconds"`
}

// NewMemoryEstimate is the estimate of bytes (PeakBytes) for g, named graph.
func NewMemoryEstimate(graph string, g *laplacian.Graph, bytes int64) MemoryEstimate {
	return MemoryEstimate{Graph: graph, NodeCount: g.N(), RelationshipCount: g.NumEdges(), EstimatedBytes: bytes,
		Estimated: fmt.Sprintf("%.1f MiB", float64(bytes)/(1<<20)), EstimatedSeconds: DetectionSeconds(g.NumEdges())}
}

// DetectionMicrosPerEdge is Leiden's time a relationship on the 2-core
// reference machine, the slowest of docs/results.md's rows at scale
// (1.2–6.7 µs: preferential attachment 5·10⁵ relationships 3.4 s, 10⁷
// 43 s, 10⁸ 322 s).
const DetectionMicrosPerEdge = 5.0

// DetectionSeconds is the order of a detection's time on edges
// relationships (DetectionMicrosPerEdge; not measured on the graph).
func DetectionSeconds(edges int) float64 { return float64(edges) * DetectionMicrosPerEdge * 1e-6 }
