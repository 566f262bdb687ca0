// Package benchgraph loads the graph a benchmark program is pointed at:
// gt:NAME (a real network from GRAPHCLOAK_DATASETS), file:PATH (an edge
// list) or a generator spec (laplacian.Generate). A program of bench/
// only: the CLI has its own graph kinds (stores.GraphKinds).
package benchgraph

import (
	"log"
	"strings"

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
