package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// communitySpecs are a spec of every --communities kind (the completion
// it starts with, the syntax help writes): the test's own list.
var communitySpecs = []struct{ spec, complete, syntax string }{
	{"leiden", "leiden", "leiden"}, {"louvain", "louvain", "louvain"},
	{"gds:leiden", "gds:leiden", "gds:leiden"}, {"gds:louvain", "gds:louvain", "gds:louvain"},
	{"property:c", "property:", "property:NAME"}, {"file:c.csv", "file:", "file:PATH"},
	{"planted", "planted", "planted"},
}

// communitiesAccepts is the parser command's --communities runs (on the
// database, where every kind can be read).
func communitiesAccepts(command string) func(spec string) error {
	switch command {
	case "communities":
		return func(spec string) error {
			return checkCommunitiesCmd(&communitiesOptions{graph: "karate", method: spec, resolution: 1, mode: "write"})
		}
	case "locate", "release", "serve":
		return func(spec string) error {
			kind, arg, _ := strings.Cut(spec, ":")
			return stores.Communities{Kind: kind, Arg: arg, Resolution: 1}.Check(spec, true)
		}
	}
	return func(spec string) error { _, _, err := job.ScoredPartitionProperty(spec); return err }
}

// Every command's --communities speaks with one voice: a kind its parser
// accepts is offered by completion and named by the flag's help, and one
// it refuses is neither. Before the table, release's completion offered
// planted (which release refuses) and the communities command's help did
// not say what leiden is.
func TestCommunityKindsOneVoice(t *testing.T) {
	isolateConfig(t)
	root := newRootCmd(io.Discard, io.Discard)
	seen := 0
	walk(root, func(c *cobra.Command) {
		f := c.Flags().Lookup("communities")
		if f == nil || c.Name() == "show" { // config show: the key, not a reader
			return
		}
		seen++
		accepts := communitiesAccepts(c.Name())
		offered := valueCompletions["communities"](c.Name())
		for _, s := range communitySpecs {
			ok := accepts(s.spec) == nil
			completes := strings.Contains(" "+strings.Join(offered, " ")+" ", " "+s.complete+" ")
			helps := strings.Contains(f.Usage, s.syntax+" (")
			if completes != ok || helps != ok {
				t.Errorf("%s --communities %s: accepted %v, offered by completion %v (%q), named by help %v (%q)",
					c.CommandPath(), s.spec, ok, completes, offered, helps, f.Usage)
			}
		}
	})
	if seen < 5 {
		t.Fatalf("only %d commands with --communities", seen)
	}
}
