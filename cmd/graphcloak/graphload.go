package main

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/spf13/pflag"
)

// neo4jSpec is the --graph value that reads the configured projection
// from Neo4j; every other value is a laplacian graph spec (a generator or
// file:PATH).
const neo4jSpec = "neo4j"

// loadedGraph is a graph from any --graph spec.
type loadedGraph struct {
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
func (lg *loadedGraph) IsNeo4j() bool { return lg.Spec == neo4jSpec }

// Close closes the driver if the loader opened it.
func (lg *loadedGraph) Close(ctx context.Context) {
	if lg != nil && lg.ownClient && lg.Client != nil {
		lg.Client.Close(ctx)
		lg.Client = nil
	}
}

// loadOptions say what loadGraph reads besides the graph.
type loadOptions struct {
	// Client is an open connection to use for --graph neo4j; nil means
	// loadGraph connects (and the loadedGraph owns the client).
	Client *connector.Client
	// ValueProperty and CommunityProperty override the configured
	// projection's (Neo4j only); "" keeps the configuration's value.
	ValueProperty, CommunityProperty string
	// Progress reports the pull ("nodes", "relationships").
	Progress func(stage string, done int)
	// Logger gets a warning when the read could not use graphcloak's
	// Neo4j plugin although the server has it; nil: none.
	Logger *slog.Logger
}

// projectionOf is the configured Neo4j projection.
func projectionOf(cfg *config.Config) connector.Projection {
	return connector.Projection{
		NodeLabels:                 cfg.Projection.NodeLabels,
		RelationshipTypes:          cfg.Projection.RelationshipTypes,
		RelationshipWeightProperty: cfg.Projection.RelationshipWeightProperty,
		NodeKeyProperty:            cfg.Projection.NodeKeyProperty,
		Database:                   cfg.Neo4j.Database,
	}
}

// connectNeo4j opens the process's one driver (VerifyConnectivity inside
// connector.Connect) with the configured URI and credentials.
func connectNeo4j(ctx context.Context, cfg *config.Config) (*connector.Client, error) {
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return connector.Connect(ctx, connector.Options{
		URI: cfg.Neo4j.URI, User: cfg.Neo4j.User, Password: cfg.Neo4j.Password,
		Database: cfg.Neo4j.Database, MaxConnectionPoolSize: max(4, cfg.Write.Concurrency),
		ConnectTimeout: secs(cfg.Neo4j.ConnectTimeout), AcquisitionTimeout: secs(cfg.Neo4j.AcquisitionTimeout),
		TransactionTimeout: secs(cfg.Neo4j.TransactionTimeout),
	})
}

// connectNeo4jLogged connects to the configured Neo4j and logs where.
func connectNeo4jLogged(ctx context.Context, g *globalOptions) (*connector.Client, error) {
	client, err := connectNeo4j(ctx, &g.cfg.Config)
	if err != nil {
		return nil, err
	}
	g.logger.Info("connected to neo4j", "uri", client.URI(), "database", client.Database())
	return client, nil
}

// loadGraph loads the graph named by spec: "neo4j" reads the configured
// projection (connecting unless opt.Client is given); anything else goes
// to laplacian.Generate (generators and file:PATH). Names are validated
// before any connection.
func loadGraph(ctx context.Context, cfg *config.Config, spec string, opt loadOptions) (*loadedGraph, error) {
	if spec == "" {
		return nil, usageErrorf("--graph is required (neo4j, a generator such as karate or sbm:sizes=50x50,pin=0.2,pout=0.01, or file:PATH)")
	}
	if name, ok := strings.CutPrefix(spec, "gt:"); ok {
		g, err := loadDataset(name)
		if err != nil {
			return nil, err
		}
		return &loadedGraph{Spec: spec, Graph: g}, nil
	}
	if spec == "file:-" {
		return nil, usageErrorf("a graph is read from a file, not from standard input (file:-); graphcloak load --edges - reads an edge list from standard input into Neo4j")
	}
	if spec != neo4jSpec {
		s, err := laplacian.ParseSpec(spec)
		if err != nil {
			return nil, err
		}
		s.Header, _ = csvin.ParseHeader(cfg.Input.Header) // validated by config
		g, part, err := s.Build()
		if err != nil {
			return nil, err
		}
		return &loadedGraph{Spec: spec, Graph: g, Partition: part}, nil
	}
	p := projectionOf(cfg)
	p.ValueProperty = opt.ValueProperty
	p.CommunityProperty = opt.CommunityProperty
	if err := p.Validate(); err != nil {
		return nil, err
	}
	lg := &loadedGraph{Spec: spec, Projection: p, Client: opt.Client}
	if lg.Client == nil {
		c, err := connectNeo4j(ctx, cfg)
		if err != nil {
			return nil, err
		}
		lg.Client, lg.ownClient = c, true
	}
	pulled, err := lg.Client.ReadGraph(ctx, p, connector.ReadOptions{Progress: opt.Progress})
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

// pullProgress adapts terminal progress to ReadGraph's (stage, done)
// callback: a counter per stage (the total is unknown while streaming),
// each stage on its own line. Call the returned end after the pull.
func (g *globalOptions) pullProgress() (progress func(stage string, done int), end func()) {
	if !g.terminal {
		return nil, func() {}
	}
	var mu sync.Mutex
	current := ""
	progress = func(stage string, done int) {
		mu.Lock()
		defer mu.Unlock()
		if current != "" && stage != current {
			fmt.Fprintln(g.stderr)
		}
		current = stage
		fmt.Fprint(g.stderr, "\r"+progressLine("pull "+stage, done, 0))
	}
	end = func() {
		mu.Lock()
		defer mu.Unlock()
		if current != "" {
			fmt.Fprintln(g.stderr)
			current = ""
		}
	}
	return progress, end
}

// newRunID returns a fresh run id: UTC time plus 48 random bits.
func newRunID() string {
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

// loadGraphSpec is loadGraph for commands that need only the graph: any
// --graph spec, Neo4j included (the configured projection; the driver is
// closed once the graph is read).
func loadGraphSpec(ctx context.Context, g *globalOptions, spec string) (*laplacian.Graph, error) {
	pull, endPull := g.pullProgress()
	lg, err := loadGraph(ctx, &g.cfg.Config, spec, loadOptions{Progress: pull, Logger: g.logger})
	endPull()
	if err != nil {
		return nil, err
	}
	lg.Close(context.WithoutCancel(ctx))
	return lg.Graph, nil
}

// loadDataset reads a network fetched by scripts/fetch-datasets.sh
// ("gt:as-22july06") as a simple undirected graph. A bad name or file is
// bad input.
func loadDataset(name string) (*laplacian.Graph, error) {
	gt, err := datasets.Open("", name)
	if err != nil {
		return nil, inputErrorf("gt:%s: %v", name, err)
	}
	g, _, err := gt.Graph()
	return g, err
}

// projectionHint names the projection flags in which cfg differs from
// the projection recorded for a run ("" when none do), for an error about
// a graph that is not the run's.
func projectionHint(cfg *config.Config, recorded connector.Projection) string {
	d := config.ProjectionDiff(
		config.NamedProjection{NodeLabels: cfg.Projection.NodeLabels, RelationshipTypes: cfg.Projection.RelationshipTypes,
			RelationshipWeightProperty: cfg.Projection.RelationshipWeightProperty, NodeKeyProperty: cfg.Projection.NodeKeyProperty},
		config.NamedProjection{NodeLabels: recorded.NodeLabels, RelationshipTypes: recorded.RelationshipTypes,
			RelationshipWeightProperty: recorded.RelationshipWeightProperty, NodeKeyProperty: recorded.NodeKeyProperty})
	if len(d) == 0 {
		return ""
	}
	return "; the projection differs from the release's: " + strings.Join(d, ", ") +
		" (drop the projection flags to read the release's projection)"
}

// addSeedFlag adds --random-seed (the configuration key write.randomSeed:
// one type and default on every command), with --seed as its old spelling.
func addSeedFlag(f *pflag.FlagSet) {
	config.AddFlags(f, "random-seed")
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "seed" {
			name = "random-seed"
		}
		return pflag.NormalizedName(name)
	})
}

// durationFlag is a time.Duration flag that takes plain seconds ("30") as
// well as a Go duration ("30s", "2m"): one convention for every duration.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}
func (f durationFlag) Type() string { return "duration" }
func (f durationFlag) Set(s string) error {
	secs, err := config.ParseSeconds(s)
	if err != nil {
		return err
	}
	*f.d = time.Duration(secs * float64(time.Second))
	return nil
}

// durationVar defines a duration flag (seconds or a Go duration).
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var(durationFlag{d: p}, name, usage)
}
