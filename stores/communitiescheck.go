package stores

import (
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
	switch kind, arg := c.Kind, c.Arg; {
	case (kind == "leiden" || kind == "louvain") && arg == "":
		return errkind.CheckPositive(ParamResolution, c.Resolution)
	case kind == "file" && arg != "":
		return nil
	case kind == "gds" && (arg == "leiden" || arg == "louvain"):
		if !neo4j {
			return errkind.Usagef("%s gds:%s runs in Neo4j Graph Data Science and needs %s %s", job.ParamCommunities, arg, job.ParamGraph, Neo4jSpec)
		}
		if arg == "louvain" && c.Resolution != 1 {
			return errkind.Usagef("%s: gds:louvain has no resolution parameter; use gds:leiden", ParamResolution)
		}
		return errkind.CheckPositive(ParamResolution, c.Resolution)
	case kind == "property" && arg != "":
		if !neo4j {
			return errkind.Usagef("%s property:NAME needs %s %s", job.ParamCommunities, job.ParamGraph, Neo4jSpec)
		}
		if !config.ValidIdentifier(arg) {
			return errkind.Inputf("%s: %q is not a valid property name", job.ParamCommunities, arg)
		}
		return nil
	}
	return errkind.Usagef("%s must be leiden, louvain, gds:leiden, gds:louvain, property:NAME or file:PATH, got %q", job.ParamCommunities, given)
}
