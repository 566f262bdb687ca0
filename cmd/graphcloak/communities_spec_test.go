package main

import (
	"testing"

	"github.com/graphcloak/graphcloak/config"
)

// checkCommunitiesCmd refuses each rule's breach of the communities
// command's flags with its exit code and the flag its message names.
func TestCheckCommunitiesCmd(t *testing.T) {
	badProperty := func(c *config.Config) { c.Write.CommunityWriteProperty = "a`b" }
	overKey := func(c *config.Config) { c.Projection.NodeKeyProperty, c.Write.CommunityWriteProperty = "id", "id" }
	for _, c := range []struct {
		name     string
		edit     func(*communitiesOptions)
		cfg      func(*config.Config)
		wantExit int
		wantFlag string
	}{
		{"leiden on karate", nil, nil, exitOK, ""},
		{"louvain streamed", func(o *communitiesOptions) { o.method, o.mode = "louvain", "stream" }, nil, exitOK, ""},
		{"written to Neo4j", func(o *communitiesOptions) { o.graph = "neo4j" }, nil, exitOK, ""},
		{"the write property unused off Neo4j", nil, badProperty, exitOK, ""},

		{"unknown mode", func(o *communitiesOptions) { o.mode = "batch" }, nil, exitUsage, "--mode"},
		{"no mode", func(o *communitiesOptions) { o.mode = "" }, nil, exitUsage, "--mode"},
		{"stream with a file", func(o *communitiesOptions) { o.mode, o.out = "stream", "c.csv" }, nil, exitUsage, "--out"},
		{"unknown detector", func(o *communitiesOptions) { o.method = "gds:leiden" }, nil, exitBadInput, "--communities"},
		{"no resolution", func(o *communitiesOptions) { o.resolution = 0 }, nil, exitBadInput, "--resolution"},
		{"a bad write property", func(o *communitiesOptions) { o.graph = "neo4j" }, badProperty, exitBadInput, "--community-write-property"},
		{"over the node key", func(o *communitiesOptions) { o.graph = "neo4j" }, overKey, exitBadInput, "--community-write-property"},
	} {
		opts := communitiesOptions{graph: "karate", method: "leiden", resolution: 1, mode: "write"}
		if c.edit != nil {
			c.edit(&opts)
		}
		opts.g = testGlobals(t, c.cfg)
		wantRefusal(t, c.name, checkCommunitiesCmd(&opts), c.wantExit, c.wantFlag)
	}
}
