package stores

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Communities say where a job's communities come from.
type Communities struct {
	// Kind is leiden, louvain, gds (Arg: leiden or louvain, run in Neo4j
	// Graph Data Science), property (Arg: the node property holding
	// them) or file (Arg: its path).
	Kind, Arg string
	// Resolution is leiden's and louvain's; Seed seeds them.
	Resolution float64
	Seed       int64
	// Cache keeps each scope's Leiden partition between the slots of a
	// service (nil: none).
	Cache *CommunityCache
	// Leiden runs Leiden when the graph is loaded even without a cache (a
	// private answer); otherwise, without a cache, the job runs it.
	Leiden bool
	// Store keeps the partition Leiden finds without a cache in the work
	// store, where plan keeps its own (job.WorkCache.Leiden; nil: none).
	Store *job.WorkCache
}

// parseCommunities splits a communities spec ("leiden", "gds:leiden",
// "property:NAME", "file:PATH") into the Kind and Arg of the communities
// it names (the other fields zero).
func parseCommunities(spec string) Communities {
	kind, arg, _ := strings.Cut(spec, ":")
	return Communities{Kind: kind, Arg: arg}
}

// partition returns the communities c names for the loaded graph (Leiden
// through the cache, Louvain, a file, GDS or a node property), with their
// names where they have them.
func (s *Stores) partition(ctx context.Context, c Communities, lg *Graph) ([]int, []string, error) {
	switch c.Kind {
	case "leiden":
		p, err := s.leiden(ctx, c, lg.Graph)
		return p, nil, err
	case "louvain":
		p, err := community.Louvain(lg.Graph, c.Resolution, uint64(c.Seed))
		return p, nil, err
	case "file":
		part, names, err := community.LoadAssignment(c.Arg, lg.Graph)
		if err != nil {
			return nil, nil, errkind.Inputf("%s: %w", job.ParamCommunities, err)
		}
		return part, names, nil
	case "gds":
		return s.gdsPartition(ctx, lg.Graph, c)
	case "property":
		return propertyPartition(lg)
	}
	return nil, nil, nil
}

// leiden is a localisation's Leiden: from the cache when there is one
// (logged: computed, reused or updated), else a fresh run when c.Leiden.
// Otherwise it returns nil, and the locate job runs Leiden itself, the
// same way.
func (s *Stores) leiden(ctx context.Context, c Communities, graph *laplacian.Graph) ([]int, error) {
	opt := community.LeidenOptions{Resolution: c.Resolution, Seed: uint64(c.Seed)}
	if c.Cache == nil {
		if c.Leiden {
			return c.Store.Leiden(ctx, graph, opt)
		}
		return nil, nil
	}
	t0 := time.Now()
	part, how, err := c.Cache.Leiden(s.cfg.Privacy.Scope, graph, opt)
	if err == nil {
		s.logger.Info("communities "+how, "nodes", graph.N(), "millis", time.Since(t0).Milliseconds())
	}
	return part, err
}

// propertyPartition returns the communities read from the projection's
// community property.
func propertyPartition(lg *Graph) ([]int, []string, error) {
	graph := lg.Graph
	byKey := make(map[string]string, graph.N())
	names := communityNames(lg.Pulled.Communities)
	for i := 0; i < graph.N(); i++ {
		byKey[graph.Key(i)] = names[i]
	}
	return community.FromAssignment(graph, byKey)
}

// gdsPartition runs c.Arg (leiden, louvain) in Neo4j GDS on the
// projection and returns the partition of graph it found, named as
// graphcloak's detectors name theirs (community.Canonical): GDS's own
// community ids are internal numbers, different from run to run.
func (s *Stores) gdsPartition(ctx context.Context, graph *laplacian.Graph, c Communities) ([]int, []string, error) {
	ids, err := s.Client.GDSCommunities(ctx, s.cfg.Neo4j.Database, s.Projection, c.Arg, connector.GDSOptions{Resolution: c.Resolution, Seed: c.Seed})
	if err != nil {
		return nil, nil, err
	}
	byKey := make(map[string]string, len(ids))
	for k, c := range ids {
		byKey[k] = strconv.FormatInt(c, 10)
	}
	part, _, err := community.FromAssignment(graph, byKey)
	return part, nil, err
}

// CommunityCache keeps the last Leiden partition of each scope a serve
// process computed, with its graph, so the next slot updates it
// (community.Update) instead of recomputing it when the graph changed
// little. It holds one graph per scope in memory; its zero value is an
// empty cache, ready to use.
type CommunityCache struct {
	// Answers keeps the private answer's model (its certifier state)
	// between slots the same way.
	Answers answer.Memo
	mu      sync.Mutex
	byScope map[string]*cachedPartition
}

type cachedPartition struct {
	graph *laplacian.Graph
	part  []int
	opt   community.LeidenOptions
}

// updateFraction is the share of changed nodes past which the cache
// recomputes from scratch: updates follow the change, and past a few
// percent a fresh run is as fast and cannot drift.
const updateFraction = 0.01

// Leiden returns the Leiden partition of g for scope: the cached one when
// the graph is unchanged, an update of it when few nodes changed, a fresh
// run otherwise. how says which.
func (c *CommunityCache) Leiden(scope string, g *laplacian.Graph, opt community.LeidenOptions) (part []int, how string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byScope == nil {
		c.byScope = map[string]*cachedPartition{}
	}
	old := c.byScope[scope]
	switch {
	case old == nil || old.opt != opt:
		part, how = nil, "computed"
	default:
		prev, changed := community.Carry(old.graph, old.part, g)
		switch {
		case len(changed) == 0 && g.N() == old.graph.N():
			part, how = prev, "reused"
		case float64(len(changed)) <= updateFraction*float64(g.N()):
			part, err = community.Update(g, prev, changed, opt)
			how = fmt.Sprintf("updated (%d changed nodes)", len(changed))
		}
	}
	if part == nil && err == nil {
		part, err = community.Leiden(g, opt)
		if how == "" {
			how = "computed (the graph changed much)"
		}
	}
	if err != nil {
		return nil, "", err
	}
	part, _ = community.Canonical(g, part) // an update names by index: the names Leiden gives
	c.byScope[scope] = &cachedPartition{graph: g, part: part, opt: opt}
	return part, how, nil
}

// WriteCommunities writes each node's community id (part, by node index)
// to property on the graph's nodes in Neo4j, once property is claimed for
// community ids: it is never written where other outputs are registered.
func (lg *Graph) WriteCommunities(ctx context.Context, part []int, property string, opt connector.WriteOptions) (connector.WriteStats, error) {
	rows := make([]connector.NodeProps, len(part))
	for i, c := range part {
		rows[i] = connector.NodeProps{Key: lg.Graph.Key(i), Props: map[string]any{property: int64(c)}}
	}
	if err := lg.Client.ClaimOutputs(ctx, lg.Projection.Database, "", "communities", connector.Claims{
		Outputs: map[string]string{property: connector.KindCommunity},
		Inputs:  connector.InputClaims(lg.Projection)}); err != nil {
		return connector.WriteStats{}, err
	}
	return lg.Client.WriteProperties(ctx, lg.Projection, rows, opt)
}
