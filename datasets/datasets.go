package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Known lists the networks scripts/fetch-datasets.sh guarantees, with the
// sizes graph-tool's collection documents for them (vertices, and edges as
// stored in the file; directed files count each arc once).
var Known = map[string]struct {
	Nodes, Edges int
	Directed     bool
	About        string
}{
	"as-22july06": {22963, 48436, false, "AS-level Internet, 22 July 2006 (M. Newman)"},
	"email-Enron": {36692, 183831, false, "Enron e-mail communication (SNAP), symmetrised"},
	"power":       {4941, 6594, false, "Western US power grid (Watts & Strogatz)"},
	"cond-mat":    {16726, 47594, false, "condensed-matter co-authorships 1995–1999 (M. Newman)"},
	"football":    {115, 613, false, "US college football, Fall 2000; 'value' is the conference"},
	"polbooks":    {105, 441, false, "US politics books (V. Krebs); 'value' is l/n/c"},
	"polblogs":    {1490, 19090, true, "US political blogs 2004 (Adamic & Glance); 'value' is 0/1"},
	"karate":      {34, 78, false, "Zachary's karate club"},
}

// Dir returns the dataset cache directory: $GRAPHCLOAK_DATASETS when set,
// else .cache/datasets under the module root found by walking up from the
// working directory to go.mod (else the working directory itself).
func Dir() string {
	if d := os.Getenv("GRAPHCLOAK_DATASETS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join(".cache", "datasets")
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, ".cache", "datasets")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, ".cache", "datasets")
		}
	}
}

// MissingError reports a dataset that is not in the cache directory.
type MissingError struct {
	Name, Path string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("datasets: %s not found at %s (run scripts/fetch-datasets.sh)", e.Name, e.Path)
}

// Open reads the named network ("as-22july06", "football", …) from dir
// (Dir() when dir is ""), from NAME.gt.gz or NAME.gt. A missing file is a
// *MissingError.
func Open(dir, name string) (*GT, error) {
	return open(dir, name, ReadGT)
}

// OpenStructure is Open without the property maps: their values are read
// past, unchecked beyond their lengths, and none is kept — for a caller
// that needs the graph alone (Graph), as fast as the file decompresses.
func OpenStructure(dir, name string) (*GT, error) {
	return open(dir, name, ReadGTStructure)
}

func open(dir, name string, read func(io.Reader) (*GT, error)) (*GT, error) {
	if dir == "" {
		dir = Dir()
	}
	path := filepath.Join(dir, name+".gt.gz")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		path = filepath.Join(dir, name+".gt")
		f, err = os.Open(path)
	}
	if os.IsNotExist(err) {
		return nil, &MissingError{Name: name, Path: filepath.Join(dir, name+".gt.gz")}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// Stats of a conversion to a simple undirected graph.
type Stats struct {
	SelfLoops  int // arcs (v, v) dropped
	Duplicates int // repeated pairs (either direction) collapsed
}

// Graph converts the file to graphcloak's simple undirected unweighted
// graph: direction is dropped, self-loops are skipped (the graph's Merges
// count them, as for every source) and repeated pairs
// (parallel edges, or u→v and v→u in a directed file) become one edge of
// weight 1 — the graph the networks' usual undirected statistics describe,
// and what laplacian.DuplicatesMerge makes of unweighted rows (the graph's
// Merges say how many). Keys are the vertex indices in decimal.
func (g *GT) Graph() (*laplacian.Graph, Stats, error) {
	edges := make([]laplacian.Edge, len(g.Edges))
	for i, e := range g.Edges {
		edges[i] = laplacian.Edge{U: int32(e[0]), V: int32(e[1]), Weight: 1}
	}
	// FromEdges skips the self-loops and counts them, as for every source.
	lg, err := laplacian.FromEdges(g.N, nil, edges, laplacian.Options{Duplicates: laplacian.DuplicatesMerge})
	if err != nil {
		return nil, Stats{}, err
	}
	m := lg.Merges()
	return lg, Stats{SelfLoops: m.SelfLoops, Duplicates: m.Merged}, nil
}

// Labels returns vertex property name rendered as one string per vertex
// (see Property.Label), e.g. the ground-truth "value" of football,
// polbooks and polblogs.
func (g *GT) Labels(name string) ([]string, error) {
	p, ok := g.VertexProps[name]
	if !ok {
		names := make([]string, 0, len(g.VertexProps))
		for k := range g.VertexProps {
			names = append(names, strconv.Quote(k))
		}
		return nil, fmt.Errorf("datasets: no vertex property %q (have %v)", name, names)
	}
	out := make([]string, len(p.Values))
	for i := range out {
		out[i] = p.Label(i)
	}
	return out, nil
}
