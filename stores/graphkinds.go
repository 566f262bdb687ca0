package stores

import (
	"context"
	"strings"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/laplacian"
)

// GraphKind is one row of the graph-kinds table (GraphKinds): a way a
// graph spec names a graph, and how the stores load it. Stores.LoadGraph
// dispatches on it; the command line's one --graph helper (its help, its
// shell completion, its path check) reads it. A new graph source is a
// new row and its loader.
type GraphKind struct {
	// Name is the kind, the spec's text before ":" ("neo4j", "sbm",
	// "file", "gt").
	Name string
	// Syntax is the spec as help writes it ("grid:rows=R,cols=C",
	// "file:PATH"); Example a spec of it that loads without any input but
	// its own ("" when it needs a file, a dataset or the database).
	Syntax, Example string
	// Complete is what shell completion offers ("sbm:sizes=", "file:").
	Complete string
	// About says what it is, for help ("a CSV edge list").
	About string
	// Database: the spec reads the configured Neo4j projection through the
	// stores' connection (Options.Neo4j); nothing else connects.
	Database bool
	// Generator: the graph is generated from the spec alone (laplacian's
	// generators; a planted partition for sbm and karate).
	Generator bool
	// Path: what follows "Name:" is a local file, checked before anything
	// is opened (the commands' path pre-check).
	Path bool
	// load loads a spec of this kind; nil for the database (loadGraph
	// reads the projection through the connection).
	load func(ctx context.Context, cfg *config.Config, spec string) (*Graph, error)
	// exact: the kind is spelled exactly (neo4j, gt:); otherwise in any
	// case with spaces around it, as laplacian.ParseSpec reads it.
	exact bool
	// laplacian: one of laplacian.ParseSpec's kinds (loadLaplacian).
	laplacian bool
}

// GraphKindTable is the graph-kinds table's type: its methods find a
// spec's kind (a table, not free functions: the stores' API is Open and
// methods, TestStoresIsOpenPlusMethods).
type GraphKindTable []GraphKind

// GraphKinds is the table, in the order completion offers the kinds.
// Read it; never change it.
var GraphKinds = GraphKindTable{
	{Name: Neo4jSpec, Syntax: Neo4jSpec, Complete: Neo4jSpec, About: "the configured projection", Database: true, exact: true},
	generator("karate", "karate", "karate", "karate", "Zachary's karate club, its two factions planted"),
	{Name: "file", Syntax: "file:PATH", Complete: "file:", About: "a CSV edge list", Path: true, load: loadLaplacian, laplacian: true},
	{Name: "gt", Syntax: "gt:NAME", Complete: "gt:", About: "a network fetched by scripts/fetch-datasets.sh", load: loadGT, exact: true},
	generator("sbm", "sbm:sizes=250x250,pin=0.05,pout=0.001,seed=7", "sbm:sizes=10x10,pin=0.5,pout=0.05", "sbm:sizes=", "a stochastic block model, its blocks planted"),
	generator("grid", "grid:rows=R,cols=C", "grid:rows=3,cols=4", "grid:rows=", "a grid"),
	generator("path", "path:n=N", "path:n=5", "path:n=", "a path"),
	generator("cycle", "cycle:n=N", "cycle:n=5", "cycle:n=", "a cycle"),
	generator("complete", "complete:n=N", "complete:n=5", "complete:n=", "a complete graph"),
	generator("star", "star:n=N", "star:n=5", "star:n=", "a star"),
	generator("pa", "pa:n=N,m=M", "pa:n=20,m=2", "pa:n=", "preferential attachment"),
	generator("rgg", "rgg:n=N,radius=R", "rgg:n=20,radius=0.5", "rgg:n=", "a random geometric graph"),
}

func generator(name, syntax, example, complete, about string) GraphKind {
	return GraphKind{Name: name, Syntax: syntax, Example: example, Complete: complete, About: about, Generator: true, load: loadLaplacian, laplacian: true}
}

// Of returns the kind of spec; false when no kind names it (LoadGraph
// then refuses it naming the table's kinds, unknown).
func (t GraphKindTable) Of(spec string) (GraphKind, bool) {
	for _, k := range t {
		if k.matches(spec) {
			return k, true
		}
	}
	return GraphKind{}, false
}

// unknown is the refusal of a spec no kind names: bad input naming every
// kind of the table, the database's and the datasets' with the rest.
func (t GraphKindTable) unknown(spec string) error {
	names := make([]string, len(t))
	for i, k := range t {
		names[i] = k.Name
	}
	kind, _, _ := strings.Cut(spec, ":")
	return errkind.Inputf("graph spec %q: unknown graph kind %q (want %s)", spec, strings.TrimSpace(kind), strings.Join(names, ", "))
}

func (k GraphKind) matches(spec string) bool {
	if k.exact {
		if k.Syntax == k.Name { // a kind without parameters: neo4j
			return spec == k.Name
		}
		return strings.HasPrefix(spec, k.Name+":")
	}
	kind, _, _ := strings.Cut(spec, ":")
	return strings.EqualFold(strings.TrimSpace(kind), k.Name)
}

// PathOf returns the local file spec names when spec is of a Path kind
// (exactly "file:PATH": a spec in other case or with spaces is refused by
// the loader, not checked); false otherwise.
func (t GraphKindTable) PathOf(spec string) (string, bool) {
	for _, k := range t {
		if k.Path {
			if p, ok := strings.CutPrefix(spec, k.Name+":"); ok {
				return p, true
			}
		}
	}
	return "", false
}

// loadLaplacian loads a laplacian spec (a generator or file:PATH) with
// the configured header and duplicate-edge rule.
func loadLaplacian(_ context.Context, cfg *config.Config, spec string) (*Graph, error) {
	if spec == "file:-" {
		return nil, errkind.Usagef("a graph is read from a file, not from standard input (file:-); graphcloak load %s - reads an edge list from standard input into Neo4j", inputfiles.ParamEdges)
	}
	s, err := laplacian.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	s.Header, _ = csvin.ParseHeader(cfg.Input.Header) // validated by config
	s.Duplicates, _ = laplacian.ParseDuplicateRule(cfg.Input.DuplicateEdges)
	g, part, err := s.Build()
	if err != nil {
		return nil, err
	}
	return &Graph{Spec: spec, Graph: g, Partition: part}, nil
}

// loadGT loads gt:NAME, a fetched dataset.
func loadGT(_ context.Context, _ *config.Config, spec string) (*Graph, error) {
	g, err := loadDataset(strings.TrimPrefix(spec, "gt:"))
	if err != nil {
		return nil, err
	}
	return &Graph{Spec: spec, Graph: g}, nil
}
