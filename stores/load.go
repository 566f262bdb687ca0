package stores

import (
	"context"
	"errors"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/laplacian"
)

// LoadSummary is what Load wrote.
type LoadSummary struct {
	Database         string `json:"database"`
	NodeLabel        string `json:"nodeLabel"`
	RelationshipType string `json:"relationshipType"`
	// DuplicateRowsMerged counts the edge list's rows that repeated a
	// pair (either direction), merged into its one relationship by the
	// rule Merges names (docs/input-files.md).
	DuplicateRowsMerged int `json:"duplicateRowsMerged"`
	// Merges say how: rows read, pairs repeated, the rule.
	Merges laplacian.Merges `json:"duplicateEdges"`
	// SelfLoopsSkipped counts the rows (a, a), not loaded: a self-loop
	// does not change the Laplacian, and no source keeps one.
	SelfLoopsSkipped int `json:"selfLoopsSkipped"`
	connector.LoadStats
}

// Load writes files into the configured database as spec says
// (connector.Client.Load) through the stores' connection. A key of two
// types is bad input naming where it is in the files.
func (s *Stores) Load(ctx context.Context, spec connector.LoadSpec, files *inputfiles.LoadFiles) (*LoadSummary, error) {
	client := s.Client
	if client == nil {
		return nil, errNotConnected
	}
	spec.Isolated = files.Isolated
	st, err := client.Load(ctx, s.cfg.Neo4j.Database, spec, files.Edges, files.Values)
	var ke *connector.LoadKeyError
	if errors.As(err, &ke) {
		return nil, errkind.Inputf("%w%s", err, files.KeyLine(ke.Key))
	}
	if err != nil {
		return nil, err
	}
	return &LoadSummary{Database: client.Database(), NodeLabel: spec.Label, RelationshipType: spec.RelationshipType,
		DuplicateRowsMerged: files.DuplicatesMerged, Merges: files.Merges, SelfLoopsSkipped: files.Merges.SelfLoops, LoadStats: *st}, nil
}
