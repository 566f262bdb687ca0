package stores

import "github.com/graphcloak/graphcloak/job"

// InKeyOrder is lg with its graph in key order (job.CanonicalGraph) and
// what was read per node — the planted partition, the values, a community
// property — carried over. A simulation's seeded sources and noise and
// Leiden's and Louvain's visits follow node indices: on the graph in key
// order, the same graph read from a CSV in any order or from Neo4j gets
// the same forecast, to the bit.
func (lg *Graph) InKeyOrder() (*Graph, error) {
	cg, perm, err := job.CanonicalGraph(lg.Graph)
	if err != nil {
		return nil, err
	}
	out := *lg
	out.Graph = cg
	out.Partition = permuted(lg.Partition, perm)
	if lg.Pulled != nil {
		pulled := *lg.Pulled
		pulled.Graph = cg
		pulled.ElementIDs = permuted(lg.Pulled.ElementIDs, perm)
		pulled.Values = permuted(lg.Pulled.Values, perm)
		pulled.Communities = permuted(lg.Pulled.Communities, perm)
		out.Pulled = &pulled
	}
	return &out, nil
}

// permuted is v with v[i] moved to perm[i] (nil stays nil).
func permuted[T any](v []T, perm []int) []T {
	if v == nil {
		return nil
	}
	out := make([]T, len(v))
	for i, x := range v {
		out[perm[i]] = x
	}
	return out
}
