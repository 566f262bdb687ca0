package stores

import (
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
)

// Check refuses communities a job cannot read on its graph (neo4j: the
// database's), before anything is opened: detection (leiden, louvain)
// needs a positive, finite resolution; gds:leiden and gds:louvain run in
// Neo4j (Graph Data Science; louvain there has no resolution);
// property:NAME is a valid property of the database's nodes; file:PATH
// names its file. given is the spec as the caller gave it ("leiden",
// "gds:leiden", "file:PATH"), which an unknown kind's message quotes.
func (c Communities) Check(given string, neo4j bool) error {
	spec := c.Kind
	if c.Arg != "" {
		spec += ":" + c.Arg
	}
	k, arg, ok := community.SpecKinds.Of(spec)
	switch {
	case !ok || !k.Located:
		return errkind.Usagef("%s must be %s, got %q", job.ParamCommunities, community.SpecKinds.Names(locatedKind), given)
	case k.Database && !neo4j:
		return errkind.Usagef("%s %s needs %s %s (%s)", job.ParamCommunities, k.Syntax, job.ParamGraph, Neo4jSpec, k.About)
	case k.Path:
		return nil
	case k.Name == "property":
		if !config.ValidIdentifier(arg) {
			return errkind.Inputf("%s: %q is not a valid property name", job.ParamCommunities, arg)
		}
		return nil
	case k.Name == "gds" && arg == "louvain" && c.Resolution != 1:
		return errkind.Usagef("%s: gds:louvain has no resolution parameter; use gds:leiden", ParamResolution)
	}
	return errkind.CheckPositive(ParamResolution, c.Resolution)
}

// locatedKind: a kind of the communities table a localisation reads.
func locatedKind(k community.SpecKind) bool { return k.Located }
