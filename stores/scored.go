package stores

import (
	"context"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/cancel"
	"github.com/graphcloak/graphcloak/job"
)

// ScoredPartition is the partition a simulation on lg scores against and
// what it is: kind planted (the generator's), leiden or louvain (detected
// at resolution with seed), property:NAME (read with the graph) or
// file:PATH; "" is planted when the graph has a planted partition, else
// leiden. Names are the communities' own names, when they have them.
func (lg *Graph) ScoredPartition(ctx context.Context, kind string, resolution float64, seed uint64) (string, []int, []string, error) {
	gr := lg.Graph
	if kind == "" {
		kind = "leiden"
		if lg.Partition != nil {
			kind = "planted"
		}
	}
	var part []int
	var names []string
	var err error
	switch {
	case kind == "planted":
		if lg.Partition == nil {
			return "", nil, nil, errkind.Inputf("%s planted: graph %q has no planted partition", job.ParamCommunities, lg.Spec)
		}
		part = lg.Partition
	case kind == "leiden" || kind == "louvain":
		if part, err = cancel.Run(ctx, func() ([]int, error) {
			if kind == "louvain" {
				return community.Louvain(gr, resolution, seed)
			}
			return community.Leiden(gr, community.LeidenOptions{Resolution: resolution, Seed: seed})
		}); err != nil {
			if ctx.Err() != nil {
				return "", nil, nil, ctx.Err()
			}
			return "", nil, nil, errkind.Inputf("%s: %w", ParamResolution, err)
		}
	case strings.HasPrefix(kind, "property:"):
		byKey := make(map[string]string, gr.N())
		for i, c := range lg.Pulled.Communities {
			byKey[gr.Key(i)] = strconv.FormatInt(c, 10)
		}
		if part, names, err = community.FromAssignment(gr, byKey); err != nil {
			return "", nil, nil, errkind.Inputf("%s: %w", job.ParamCommunities, err)
		}
	default:
		path := strings.TrimPrefix(kind, "file:")
		if part, names, err = community.LoadAssignment(path, gr); err != nil {
			return "", nil, nil, errkind.Inputf("%s: %w", job.ParamCommunities, err)
		}
	}
	return kind, part, names, nil
}

// ScoredPartitionCached is ScoredPartition with Leiden's partition kept in
// work (nil: none), where plan and locate --private-answer find it
// (job.WorkCache.Leiden): kind leiden, or "" on a graph without a planted
// partition.
func (lg *Graph) ScoredPartitionCached(ctx context.Context, kind string, resolution float64, seed uint64, work *job.WorkCache) (string, []int, []string, error) {
	if work == nil || !(kind == "leiden" || (kind == "" && lg.Partition == nil)) {
		return lg.ScoredPartition(ctx, kind, resolution, seed)
	}
	part, err := work.Leiden(ctx, lg.Graph, community.LeidenOptions{Resolution: resolution, Seed: seed})
	if err != nil {
		if ctx.Err() != nil {
			return "", nil, nil, ctx.Err()
		}
		return "", nil, nil, errkind.Inputf("%s: %w", ParamResolution, err)
	}
	return "leiden", part, nil, nil
}
