package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
)

// One name for a community: the private answer publishes and ranks
// karate's Leiden communities under the names communities writes — each
// posterior row's name is a community of `communities --out` of that
// many nodes, its id that name, and the published community's id its
// name (before: the answer's internal ids, the 12-node faction "2" where
// communities says "1").
func TestPrivateAnswerNamesCommunitiesAsCommunitiesDoes(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	parts := filepath.Join(dir, "communities.csv")
	mustRun(t, "communities", "--graph", "karate", "--out", parts)
	size := communitySizes(t, parts)
	ledger := filepath.Join(dir, "ledger.json")
	mustRun(t, "budget", "--init", "--ledger", ledger, "--epsilon-total", "4", "--delta-total", "1e-6")
	out := mustRun(t, "locate", "--graph", "karate", "--private-answer", "--values", "../../examples/readings.csv", "--tau", "1",
		"--epsilon", "0.5", "--ledger", ledger, "-o", "json")
	var doc struct {
		Answer struct {
			Community   string `json:"community"`
			CommunityID int    `json:"communityId"`
			Posterior   struct {
				Communities []struct {
					ID   int    `json:"id"`
					Name string `json:"name"`
					Size int    `json:"size"`
				} `json:"communities"`
			} `json:"posterior"`
		} `json:"answer"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	a := doc.Answer
	if a.Community != strconv.Itoa(a.CommunityID) || size[a.Community] == 0 {
		t.Errorf("published community %q, id %d; communities names %v", a.Community, a.CommunityID, size)
	}
	if len(a.Posterior.Communities) != len(size) {
		t.Errorf("posterior over %d communities, communities found %d", len(a.Posterior.Communities), len(size))
	}
	for _, c := range a.Posterior.Communities {
		if c.Name != strconv.Itoa(c.ID) || size[c.Name] != c.Size {
			t.Errorf("posterior row id %d, name %q, %d nodes; communities has %d nodes in %q", c.ID, c.Name, c.Size, size[c.Name], c.Name)
		}
	}
}
