package main

import "testing"

// TestExperimentCommunityProperty: only --communities property:NAME names
// a node property for plan and experiment graph to read with the graph;
// leiden, louvain, planted and file:PATH read none. Before, every kind
// was passed on as the property (strings.CutPrefix returns its input
// when the prefix is missing), so plan --graph neo4j with the default
// leiden failed with 'database "neo4j" has no property "leiden"' (issue
// 48, item 3: the guides' forecast against Neo4j).
func TestExperimentCommunityProperty(t *testing.T) {
	for kind, want := range map[string]string{
		"": "", "leiden": "", "louvain": "", "planted": "", "file:communities.csv": "",
		"property:community": "community",
	} {
		o := graphOptions{graph: "neo4j", communities: kind, trials: 1, sources: 1, taus: []float64{1},
			epsilons: []float64{1}, delta: 1e-6, alpha: 1, resolution: 1, estimator: "posterior"}
		got, err := checkExperimentGraph(&o)
		if err != nil || got != want {
			t.Errorf("--communities %q: property %q, %v; want %q", kind, got, err, want)
		}
	}
}
