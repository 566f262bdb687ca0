package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
)

// communityCache keeps the last Leiden partition of each scope a serve
// process computed, with its graph, so the next slot updates it
// (community.Update) instead of recomputing it when the graph changed
// little. It holds one graph per scope in memory.
type communityCache struct {
	// answers keeps the private answer's model (its certifier state)
	// between slots the same way.
	answers graphcloak.AnswerMemo
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

func newCommunityCache() *communityCache {
	return &communityCache{byScope: map[string]*cachedPartition{}}
}

// leiden returns the Leiden partition of g for scope: the cached one when
// the graph is unchanged, an update of it when few nodes changed, a fresh
// run otherwise. how says which.
func (c *communityCache) leiden(scope string, g *laplacian.Graph, opt community.LeidenOptions) (part []int, how string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
	c.byScope[scope] = &cachedPartition{graph: g, part: part, opt: opt}
	return part, how, nil
}

// cachedLeiden is locate's Leiden: from the serve cache when there is one
// (logged: computed, reused or updated), else a fresh run. Without a cache
// it returns nil, and the locate job runs Leiden itself, the same way.
func cachedLeiden(g *globalOptions, opts *locateOptions, graph *laplacian.Graph, seed uint64) ([]int, error) {
	opt := community.LeidenOptions{Resolution: opts.resolution, Seed: seed}
	if opts.communityCache == nil {
		if opts.privateAnswer.enabled {
			return community.Leiden(graph, opt)
		}
		return nil, nil
	}
	t0 := time.Now()
	part, how, err := opts.communityCache.leiden(g.cfg.Privacy.Scope, graph, opt)
	if err == nil {
		g.logger.Info("communities "+how, "nodes", graph.N(), "millis", time.Since(t0).Milliseconds())
	}
	return part, err
}
