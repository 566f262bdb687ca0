package stores

import (
	"strings"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
)

// ScoredPartitionProperty checks kind, a partition ScoredPartition
// reads ("", planted, leiden, louvain, file:PATH or property:NAME), before
// the graph is loaded, and says whether it is a node property and which:
// LoadOptions.CommunityProperty. Any other kind is bad input.
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

// LedgerName names the configured ledger as a report shows it: neo4j for
// a ledger kept in Neo4j, else its file (ledgerPath).
func LedgerName(cfg *config.Config) (string, error) {
	if cfg.Privacy.Ledger == "neo4j" {
		return "neo4j", nil
	}
	return ledgerPath(cfg)
}
