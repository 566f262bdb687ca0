package graphcloak

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// A demo on a generated graph plants the source at the node named, among
// the generator's communities (Leiden's when it plants none), and its
// summary agrees with what it ran on; a source that is no node of the
// graph is bad input naming the source.
func TestRunDemo(t *testing.T) {
	for _, c := range []struct {
		graph, source, communities string
		nodes                      int
	}{
		{"karate", "34", "planted", 34},
		{"karate", "", "planted", 34},
		{"path:n=12", "", "Leiden", 12},
	} {
		run, err := RunDemo(context.Background(), DemoSpec{Graph: c.graph, Source: c.source, Tau: 1, Epsilon: 8, Delta: 1e-5, Epoch: "e1"})
		if err != nil {
			t.Fatalf("%s: %v", c.graph, err)
		}
		s := run.Summary
		if run.Communities != c.communities || s.NodeCount != c.nodes || run.Graph.N() != c.nodes || len(run.Partition) != c.nodes {
			t.Errorf("%s: %s communities over %d nodes (summary %d), want %s over %d", c.graph, run.Communities, run.Graph.N(), s.NodeCount, c.communities, c.nodes)
		}
		if key := run.Graph.Key(run.Source); key != s.Source || (c.source != "" && key != c.source) {
			t.Errorf("%s: source %q (summary %q), asked %q", c.graph, key, s.Source, c.source)
		}
		if s.SourceCommunity != strconv.Itoa(run.Partition[run.Source]) || s.Sigma <= 0 || s.Report == nil || s.Report != run.Locate.Report {
			t.Errorf("%s: summary %+v", c.graph, s)
		}
		rep := s.Report
		if right := !rep.NoSource && rep.Communities[0].ID == run.SourceCommunity(); s.TopCommunityRight != right {
			t.Errorf("%s: topCommunityIsSource %v, the ranking says %v", c.graph, s.TopCommunityRight, right)
		}
	}
	_, err := RunDemo(context.Background(), DemoSpec{Graph: "karate", Source: "35", Tau: 1, Epsilon: 8, Delta: 1e-5, Epoch: "e1"})
	if errkind.Of(err) != errkind.BadInput || !strings.Contains(errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) }), `--source: "35" is not a node of karate (keys 1..34)`) {
		t.Errorf("unknown source: %v (%v)", err, errkind.Of(err))
	}
}
