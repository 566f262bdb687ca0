package demo

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// The demo releases a unit source's readings at the σ its ε and δ give
// and locates it among the communities from the released values alone.
func TestDemo(t *testing.T) {
	g, part, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	rel, loc, err := ReleaseAndLocate(context.Background(), Request{Graph: g, Source: 0, Partition: part, Tau: 1, Epsilon: 1, Delta: 1e-6, Epoch: "e1"})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Released.Meta.Sigma <= 0 || rel.Released.Meta.Epsilon != 1 || len(rel.Released.Values) != g.N() {
		t.Errorf("release: σ %v, ε %v, %d values", rel.Released.Meta.Sigma, rel.Released.Meta.Epsilon, len(rel.Released.Values))
	}
	if loc.Report == nil || len(loc.Nodes) != g.N() {
		t.Errorf("localisation: report %v, %d node rows", loc.Report, len(loc.Nodes))
	}
}
