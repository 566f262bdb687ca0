package job

import (
	"strings"

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
	property, isProperty = strings.CutPrefix(kind, "property:")
	if isProperty {
		return property, true, nil
	}
	switch {
	case kind == "", kind == "planted", kind == "leiden", kind == "louvain", strings.HasPrefix(kind, "file:"):
		return "", false, nil
	}
	return "", false, errkind.Inputf("%v must be planted, leiden, louvain, file:PATH or property:NAME, got %q", ParamCommunities, kind)
}
