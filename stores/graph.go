package stores

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Neo4jSpec is the graph spec that reads the configured projection from
// Neo4j; every other spec is a laplacian graph spec (a generator or
// file:PATH) or gt:NAME (a fetched dataset).
const Neo4jSpec = "neo4j"

// Graph is a graph loaded from any graph spec.
type Graph struct {
	Spec  string
	Graph *laplacian.Graph
	// Partition is the planted partition of a generator (sbm blocks,
	// karate factions) or nil.
	Partition []int
	// Neo4j graphs: the stores' connection, the projection read and what
	// was pulled.
	Client     *connector.Client
	Projection connector.Projection
	Pulled     *connector.Pulled
}

// IsNeo4j reports whether the graph came from the database.
func (lg *Graph) IsNeo4j() bool { return lg.Spec == Neo4jSpec }

// LoadOptions say what Stores.LoadGraph reads besides the graph.
type LoadOptions struct {
	// Projection, when not nil, is the projection read (a release
	// run's); nil: the stores'.
	Projection *connector.Projection
	// ValueProperty and CommunityProperty override the projection's
	// (Neo4j only); "" keeps the configuration's value.
	ValueProperty, CommunityProperty string
	// AllowMissingValues reads nodes without ValueProperty as NaN (the
	// sensors that did not report to a collected local release).
	AllowMissingValues bool
	// AllowBadValues reads a ValueProperty that is not a finite number as
	// NaN (a private answer's broken readings).
	AllowBadValues bool
	// Progress reports the pull ("nodes", "relationships"); nil: the
	// stores' (Options.Pull).
	Progress func(stage string, done int)
	// Logger gets a warning when the read could not use graphcloak's
	// Neo4j plugin although the server has it; nil: the stores'.
	Logger *slog.Logger
}

// connect opens the process's one driver (VerifyConnectivity inside
// connector.Connect) with the configured URI and credentials, and logs
// where.
func connect(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*connector.Client, error) {
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	client, err := connector.Connect(ctx, connector.Options{
		URI: cfg.Neo4j.URI, User: cfg.Neo4j.User, Password: cfg.Neo4j.Password,
		Database: cfg.Neo4j.Database, MaxConnectionPoolSize: max(4, cfg.Write.Concurrency),
		ConnectTimeout: secs(cfg.Neo4j.ConnectTimeout), AcquisitionTimeout: secs(cfg.Neo4j.AcquisitionTimeout),
		TransactionTimeout: secs(cfg.Neo4j.TransactionTimeout),
	})
	if err != nil {
		return nil, err
	}
	logger.Info("connected to neo4j", "uri", client.URI(), "database", client.Database())
	return client, nil
}

// loadGraph loads the graph named by spec, by its kind (GraphKinds):
// Neo4jSpec reads the projection opt names (the configured one unless
// opt.Projection) through client, checked first; every other kind has its
// loader.
func loadGraph(ctx context.Context, cfg *config.Config, client *connector.Client, spec string, opt LoadOptions) (*Graph, error) {
	if spec == "" {
		return nil, errkind.Usagef("%s is required (neo4j, a generator such as karate or sbm:sizes=50x50,pin=0.2,pout=0.01, or file:PATH)", job.ParamGraph)
	}
	k, ok := GraphKinds.Of(spec)
	switch {
	case !ok:
		return nil, GraphKinds.unknown(spec)
	case k.load != nil:
		return k.load(ctx, cfg, spec)
	}
	p := cfg.Neo4jProjection()
	if opt.Projection != nil {
		p = *opt.Projection
	}
	p.ValueProperty = opt.ValueProperty
	p.CommunityProperty = opt.CommunityProperty
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errNotConnected
	}
	lg := &Graph{Spec: spec, Projection: p, Client: client}
	dups, _ := laplacian.ParseDuplicateRule(cfg.Input.DuplicateEdges) // validated by config
	pulled, err := client.ReadGraph(ctx, p, connector.ReadOptions{Progress: opt.Progress, AllowMissingValues: opt.AllowMissingValues, AllowBadValues: opt.AllowBadValues, Duplicates: dups})
	if err != nil {
		return nil, err
	}
	if pulled.Stats.ReadNote != "" && opt.Logger != nil {
		opt.Logger.Warn(pulled.Stats.ReadNote)
	}
	lg.Graph, lg.Pulled = pulled.Graph, pulled
	return lg, nil
}

// communityNames renders int64 community ids read from Neo4j as names.
func communityNames(ids []int64) []string {
	out := make([]string, len(ids))
	for i, c := range ids {
		out[i] = strconv.FormatInt(c, 10)
	}
	return out
}

// loadDataset reads a network fetched by scripts/fetch-datasets.sh
// ("gt:as-22july06") as a simple undirected graph. A bad name or file is
// bad input.
func loadDataset(name string) (*laplacian.Graph, error) {
	gt, err := datasets.OpenStructure("", name) // the graph alone: no property is kept
	if err != nil {
		return nil, errkind.Inputf("gt:%s: %s", name, err.Error()) // not wrapped: bad input whatever its cause
	}
	g, _, err := gt.Graph()
	return g, err
}

// projectionHint names the projection settings in which current differs
// from the projection recorded for a run ("" when none do), for an error
// about a graph that is not the run's.
func projectionHint(current, recorded connector.Projection) string {
	d := config.ProjectionDiff(
		config.NamedProjection{NodeLabels: current.NodeLabels, RelationshipTypes: current.RelationshipTypes,
			RelationshipWeightProperty: current.RelationshipWeightProperty, NodeKeyProperty: current.NodeKeyProperty},
		config.NamedProjection{NodeLabels: recorded.NodeLabels, RelationshipTypes: recorded.RelationshipTypes,
			RelationshipWeightProperty: recorded.RelationshipWeightProperty, NodeKeyProperty: recorded.NodeKeyProperty})
	if len(d) == 0 {
		return ""
	}
	return "; the projection differs from the release's: " + strings.Join(d, ", ") +
		" (drop the projection flags to read the release's projection)"
}
