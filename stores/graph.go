package stores

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
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
	// Neo4j graphs: the client (owned when the loader connected it), the
	// projection read and what was pulled.
	Client     *connector.Client
	Projection connector.Projection
	Pulled     *connector.Pulled
	ownClient  bool
}

// IsNeo4j reports whether the graph came from the database.
func (lg *Graph) IsNeo4j() bool { return lg.Spec == Neo4jSpec }

// Close closes the driver if the loader opened it.
func (lg *Graph) Close(ctx context.Context) {
	if lg != nil && lg.ownClient && lg.Client != nil {
		lg.Client.Close(ctx)
		lg.Client = nil
	}
}

// LoadOptions say what LoadGraph reads besides the graph.
type LoadOptions struct {
	// Client is an open connection to use for the Neo4j spec; nil means
	// LoadGraph connects (and the Graph owns the client).
	Client *connector.Client
	// Projection, when not nil, is the projection read (a release
	// run's); nil: the configured one.
	Projection *connector.Projection
	// ValueProperty and CommunityProperty override the projection's
	// (Neo4j only); "" keeps the configuration's value.
	ValueProperty, CommunityProperty string
	// AllowMissingValues reads nodes without ValueProperty as NaN (the
	// sensors that did not report to a collected local release).
	AllowMissingValues bool
	// Progress reports the pull ("nodes", "relationships").
	Progress func(stage string, done int)
	// Logger gets a warning when the read could not use graphcloak's
	// Neo4j plugin although the server has it; nil: none.
	Logger *slog.Logger
}

// ProjectionOf is the configured Neo4j projection.
func ProjectionOf(cfg *config.Config) connector.Projection {
	return connector.Projection{
		NodeLabels:                 cfg.Projection.NodeLabels,
		RelationshipTypes:          cfg.Projection.RelationshipTypes,
		RelationshipWeightProperty: cfg.Projection.RelationshipWeightProperty,
		NodeKeyProperty:            cfg.Projection.NodeKeyProperty,
		Database:                   cfg.Neo4j.Database,
	}
}

// connect opens the process's one driver (VerifyConnectivity inside
// connector.Connect) with the configured URI and credentials.
func connect(ctx context.Context, cfg *config.Config) (*connector.Client, error) {
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return connector.Connect(ctx, connector.Options{
		URI: cfg.Neo4j.URI, User: cfg.Neo4j.User, Password: cfg.Neo4j.Password,
		Database: cfg.Neo4j.Database, MaxConnectionPoolSize: max(4, cfg.Write.Concurrency),
		ConnectTimeout: secs(cfg.Neo4j.ConnectTimeout), AcquisitionTimeout: secs(cfg.Neo4j.AcquisitionTimeout),
		TransactionTimeout: secs(cfg.Neo4j.TransactionTimeout),
	})
}

// connectLogged connects to the configured Neo4j and logs where.
func connectLogged(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*connector.Client, error) {
	client, err := connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	logger.Info("connected to neo4j", "uri", client.URI(), "database", client.Database())
	return client, nil
}

// LoadGraph loads the graph named by spec: Neo4jSpec reads the configured
// projection (connecting unless opt.Client is given); anything else goes
// to laplacian.Generate (generators and file:PATH) or datasets (gt:NAME).
// Names are validated before any connection.
func LoadGraph(ctx context.Context, cfg *config.Config, spec string, opt LoadOptions) (*Graph, error) {
	if spec == "" {
		return nil, usageErrorf("%s is required (neo4j, a generator such as karate or sbm:sizes=50x50,pin=0.2,pout=0.01, or file:PATH)", ParamGraph)
	}
	if name, ok := strings.CutPrefix(spec, "gt:"); ok {
		g, err := loadDataset(name)
		if err != nil {
			return nil, err
		}
		return &Graph{Spec: spec, Graph: g}, nil
	}
	if spec == "file:-" {
		return nil, usageErrorf("a graph is read from a file, not from standard input (file:-); graphcloak load %s - reads an edge list from standard input into Neo4j", ParamEdges)
	}
	if spec != Neo4jSpec {
		s, err := laplacian.ParseSpec(spec)
		if err != nil {
			return nil, err
		}
		s.Header, _ = csvin.ParseHeader(cfg.Input.Header) // validated by config
		g, part, err := s.Build()
		if err != nil {
			return nil, err
		}
		return &Graph{Spec: spec, Graph: g, Partition: part}, nil
	}
	p := ProjectionOf(cfg)
	if opt.Projection != nil {
		p = *opt.Projection
	}
	p.ValueProperty = opt.ValueProperty
	p.CommunityProperty = opt.CommunityProperty
	if err := p.Validate(); err != nil {
		return nil, err
	}
	lg := &Graph{Spec: spec, Projection: p, Client: opt.Client}
	if lg.Client == nil {
		c, err := connect(ctx, cfg)
		if err != nil {
			return nil, err
		}
		lg.Client, lg.ownClient = c, true
	}
	pulled, err := lg.Client.ReadGraph(ctx, p, connector.ReadOptions{Progress: opt.Progress, AllowMissingValues: opt.AllowMissingValues})
	if err != nil {
		lg.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	if pulled.Stats.ReadNote != "" && opt.Logger != nil {
		opt.Logger.Warn(pulled.Stats.ReadNote)
	}
	lg.Graph, lg.Pulled = pulled.Graph, pulled
	return lg, nil
}

// NewRunID returns a fresh run id: UTC time plus 48 random bits.
func NewRunID() string {
	return fmt.Sprintf("run-%s-%s", time.Now().UTC().Format("20060102T150405Z"), randomHex(6))
}

// communityNames renders int64 community ids read from Neo4j as names.
func communityNames(ids []int64) []string {
	out := make([]string, len(ids))
	for i, c := range ids {
		out[i] = strconv.FormatInt(c, 10)
	}
	return out
}

// randomHex returns 2n hex digits from crypto/rand.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := cryptorand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// loadDataset reads a network fetched by scripts/fetch-datasets.sh
// ("gt:as-22july06") as a simple undirected graph. A bad name or file is
// bad input.
func loadDataset(name string) (*laplacian.Graph, error) {
	gt, err := datasets.Open("", name)
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
