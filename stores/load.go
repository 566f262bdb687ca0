package stores

import (
	"context"
	"errors"
	"log/slog"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// LoadSummary is what Load wrote.
type LoadSummary struct {
	Database         string `json:"database"`
	NodeLabel        string `json:"nodeLabel"`
	RelationshipType string `json:"relationshipType"`
	// DuplicateRowsMerged counts the edge list's rows that repeated an
	// edge (either direction): merged into its one relationship, their
	// weights summed (docs/input-files.md).
	DuplicateRowsMerged int `json:"duplicateRowsMerged"`
	connector.LoadStats
}

// Load connects to the configured database and writes files into it as
// spec says (connector.Client.Load). A key of two types is bad input
// naming where it is in the files.
func Load(ctx context.Context, cfg *config.Config, logger *slog.Logger, spec connector.LoadSpec, files *LoadFiles) (*LoadSummary, error) {
	client, err := connectLogged(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	defer client.Close(context.WithoutCancel(ctx))
	st, err := client.Load(ctx, cfg.Neo4j.Database, spec, files.Edges, files.Values)
	var ke *connector.LoadKeyError
	if errors.As(err, &ke) {
		return nil, errkind.Inputf("%w%s", err, files.KeyLine(ke.Key))
	}
	if err != nil {
		return nil, err
	}
	return &LoadSummary{Database: client.Database(), NodeLabel: spec.Label, RelationshipType: spec.RelationshipType,
		DuplicateRowsMerged: files.DuplicatesMerged, LoadStats: *st}, nil
}
