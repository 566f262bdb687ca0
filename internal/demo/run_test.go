package demo

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak"
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
		run, err := Run(context.Background(), Spec{Graph: c.graph, Source: c.source, Tau: 1, Epsilon: 8, Delta: 1e-5, Epoch: "e1"})
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
	_, err := Run(context.Background(), Spec{Graph: "karate", Source: "35", Tau: 1, Epsilon: 8, Delta: 1e-5, Epoch: "e1"})
	if errkind.Of(err) != errkind.BadInput || !strings.Contains(errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) }), `--source: "35" is not a node of karate (keys 1..34)`) {
		t.Errorf("unknown source: %v (%v)", err, errkind.Of(err))
	}
}

// Check takes τ > 0, ε > 0 and 0 < δ < 1, finite, and refuses anything
// else as bad input naming the parameter.
func TestDemoSpecCheck(t *testing.T) {
	ok := Spec{Graph: "karate", Tau: 2, Epsilon: 4, Delta: 0.1}
	if err := ok.Check(); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	for _, c := range []struct {
		change func(*Spec)
		param  errkind.Param
	}{
		{func(s *Spec) { s.Tau = 0 }, graphcloak.ParamTau},
		{func(s *Spec) { s.Tau = math.Inf(1) }, graphcloak.ParamTau},
		{func(s *Spec) { s.Epsilon = math.NaN() }, ParamEpsilon},
		{func(s *Spec) { s.Epsilon = -1 }, ParamEpsilon},
		{func(s *Spec) { s.Delta = 1 }, ParamDelta},
		{func(s *Spec) { s.Delta = 0 }, ParamDelta},
	} {
		s := ok
		c.change(&s)
		err := s.Check()
		if errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(errkind.Render(err, func(p errkind.Param) string { return "<" + string(p) + ">" }), "<"+string(c.param)+">: invalid value") {
			t.Errorf("%+v: %v, want bad input naming %s", s, err, c.param)
		}
	}
}
