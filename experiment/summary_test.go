package experiment

import (
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
)

func TestSummarise(t *testing.T) {
	rs := []*forecast.SimulationResult{
		{Trials: 100, Epsilon: 1, Tau: 2, CommunityAccuracy: 0.6, ExactNodeRate: 0.01, Communities: 2, Nodes: 500},
		{Trials: 100, Epsilon: 4, Tau: 2, CommunityAccuracy: 0.9, ExactNodeRate: 0.05, Communities: 2, Nodes: 500},
	}
	s := Summarise(rs)
	if len(s.Community) != 2 || s.CommunityChance != 0.5 || s.ExactNodeChance != 1.0/500 {
		t.Fatalf("%+v", s)
	}
	if c := s.Community[1]; c.Epsilon != 4 || c.Rate != 0.9 || !(c.Lo < 0.9 && 0.9 < c.Hi) {
		t.Errorf("%+v", c)
	}
	if s.CommunityGuess != 0.5 {
		t.Errorf("guess %g with no community share given; want chance 0.5", s.CommunityGuess)
	}
	// Unequal communities: a ranking that learns nothing names the largest
	// (70% of the nodes) first, so that share is the level to beat.
	rs[0].Communities, rs[0].LargestShare = 4, 0.7
	rs[1].Communities, rs[1].LargestShare = 4, 0.7
	if s = Summarise(rs); s.CommunityChance != 0.25 || s.CommunityGuess != 0.7 {
		t.Errorf("chance %g, guess %g; want 0.25 and 0.7", s.CommunityChance, s.CommunityGuess)
	}
}
