package job

import (
	"github.com/graphcloak/graphcloak/community"

	"github.com/graphcloak/graphcloak/errkind"
)

// ParamCommunities is where a job's or a simulation's communities come
// from.
const ParamCommunities errkind.Param = "communities"

// ScoredPartitionProperty checks kind, the partition a simulation scores
// against ("", planted, leiden, louvain, file:PATH or property:NAME; read
// by stores.Graph.ScoredPartition), before the graph is loaded, and says
// whether it is a node property and which (read with the graph). Any
// other kind is bad input.
func ScoredPartitionProperty(kind string) (property string, isProperty bool, err error) {
	if kind == "" {
		return "", false, nil
	}
	scored := func(k community.SpecKind) bool { return k.Scored }
	k, arg, ok := community.SpecKinds.Of(kind)
	if !ok || !scored(k) {
		return "", false, errkind.Inputf("%v must be %s, got %q", ParamCommunities, community.SpecKinds.Names(scored), kind)
	}
	if k.Name == "property" {
		return arg, true, nil
	}
	return "", false, nil
}
