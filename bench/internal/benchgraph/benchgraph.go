// Package benchgraph loads the graph a benchmark program is pointed at:
// gt:NAME (a real network from GRAPHCLOAK_DATASETS), file:PATH (an edge
// list) or a generator spec (laplacian.Generate). A program of bench/
// only: the CLI has its own graph kinds (stores.GraphKinds).
package benchgraph

import (
	"log"
	"strings"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Load returns the graph spec names, exiting the program (log.Fatal) when
// it cannot be read: a benchmark has nothing to measure without it.
func Load(spec string) *laplacian.Graph {
	g, err := load(spec)
	if err != nil {
		log.Fatal(err)
	}
	return g
}

func load(spec string) (*laplacian.Graph, error) {
	if name, ok := strings.CutPrefix(spec, "gt:"); ok {
		gt, err := datasets.Open(datasets.Dir(), name)
		if err != nil {
			return nil, err
		}
		g, _, err := gt.Graph()
		return g, err
	}
	if path, ok := strings.CutPrefix(spec, "file:"); ok {
		return laplacian.LoadCSV(path, laplacian.Options{})
	}
	g, _, err := laplacian.Generate(spec)
	return g, err
}

// InKeyOrder returns the graph spec names in key order, as plan and
// locate simulate on it (laplacian.SortedByKey), with the communities of
// the CSV at path (node,community) moved to that order and numbered as
// community.Canonical numbers them, and their count; perm[i] is the
// key-order index of the graph-as-read's node i.
func InKeyOrder(spec, path string) (cg *laplacian.Graph, perm, cpart []int, k int) {
	g := Load(spec)
	part, _, err := community.LoadAssignment(path, g)
	if err != nil {
		log.Fatal(err)
	}
	cg, perm, err = laplacian.SortedByKey(g)
	if err != nil {
		log.Fatal(err)
	}
	cpart = make([]int, len(part))
	for i, c := range part {
		cpart[perm[i]] = c
	}
	cpart, k = community.Canonical(cg, cpart)
	return cg, perm, cpart, k
}
