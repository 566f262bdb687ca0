package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/stores"
)

// The one place the command line spells --graph's kinds: every command's
// --graph is declared by graphFlag, its help, shell completion and path
// check read the stores' graph-kinds table (stores.GraphKinds), and the
// messages that name a kind take it from here. TestGraphKindsSpelledOnce
// holds the other files of the command to it.

// graphUse says which kinds a command's --graph takes.
type graphUse string

const (
	graphAny       graphUse = "any"       // every kind of the table
	graphDatabase  graphUse = "database"  // the database's only (serve, unmask, collect)
	graphGenerated graphUse = "generated" // a generator only (demo: no input, no database)
)

// graphUseAnnotation records a --graph flag's use, for its completion and
// its path check.
const graphUseAnnotation = "graphcloak_graph_use"

// paperGraph is the paper's graph setting, two blocks of 250 nodes: the
// default graph of demo and experiment graph.
const paperGraph = "sbm:sizes=250x250,pin=0.05,pout=0.001"

// graphNeo4j is --graph with the database's kind, as messages name it.
const graphNeo4j = "--graph " + stores.Neo4jSpec

// graphRequired is what a command that needs --graph says without one.
func graphRequired() error {
	return errkind.Usagef("--graph is required (%s)", graphKindsBrief)
}

// graphKindsBrief names the kinds in a message: "neo4j, a generator such
// as karate, or file:PATH".
var graphKindsBrief = stores.Neo4jSpec + ", a generator such as karate, or " + stores.GraphKinds.PathKind().Syntax

// graphFlag declares a command's --graph with default def: its help is
// what it is for, then the kinds use takes, from the table.
func graphFlag(f *pflag.FlagSet, dst *string, def string, use graphUse, what string) {
	f.StringVar(dst, "graph", def, graphHelp(use, what))
	_ = f.SetAnnotation("graph", graphUseAnnotation, []string{string(use)})
}

// graphHelp is --graph's help: "what: neo4j (the configured projection),
// a generator (karate, sbm:…, …), file:PATH (…) or gt:NAME (…)"
// (stores.GraphKinds.Describe).
func graphHelp(use graphUse, what string) string {
	if use == graphDatabase {
		return stores.Neo4jSpec + ": " + what
	}
	return what + ": " + stores.GraphKinds.Describe(use == graphGenerated)
}

// graphUseOf is f's use (a flag not declared by graphFlag: every kind).
func graphUseOf(f *pflag.Flag) graphUse {
	if u := f.Annotations[graphUseAnnotation]; len(u) == 1 {
		return graphUse(u[0])
	}
	return graphAny
}

// graphCompletions are the kinds use takes, as completion offers them.
func graphCompletions(use graphUse) []string {
	return stores.GraphKinds.Completions(func(k stores.GraphKind) bool {
		return (use == graphAny) || (use == graphDatabase && k.Database) || (use == graphGenerated && k.Generator)
	})
}

// graphPath is the local file a --graph value names (the path check
// reads it before the command runs); false when it names none.
func graphPath(value string) (string, bool) {
	return stores.GraphKinds.PathOf(value)
}

// openGraph opens the stores of a command that reads the graph of spec
// (and the community property, when named) and writes nothing, with its
// progress and logger: for the database's kind connected (the process's
// one driver) once the projection read is checked; for any other kind
// nothing is opened. The caller closes them.
func openGraph(ctx context.Context, g *globalOptions, spec, property string) (*stores.Stores, error) {
	kind, _ := stores.GraphKinds.Of(spec)
	return stores.Open(ctx, g.cfg, stores.Options{Neo4j: kind.Database, CheckProjection: kind.Database, CommunityProperty: property,
		Logger: g.logger, Pull: g.pullProgress, Merged: g.sayMerges})
}

// loadGraphFlag is the one loader of a command that only reads --graph
// (sensitivity, audit, the simulations, the estimates): spec, with the
// community property when named, through stores of its own (openGraph),
// closed once it is read. named: a graph outside the database that
// cannot be read is named by the flag (readGraphFlag).
func loadGraphFlag(ctx context.Context, g *globalOptions, spec, property string, named bool) (*stores.Graph, error) {
	st, err := openGraph(ctx, g, spec, property)
	if err != nil {
		return nil, err
	}
	defer st.Close(context.WithoutCancel(ctx))
	return readGraphFlag(ctx, st, spec, property, named)
}

// readGraphFlag loads --graph's spec through st (opened by openGraph,
// kept open by the caller: plan reads its ledger through them too).
func readGraphFlag(ctx context.Context, st *stores.Stores, spec, property string, named bool) (*stores.Graph, error) {
	lg, err := st.LoadGraph(ctx, spec, stores.LoadOptions{CommunityProperty: property})
	if kind, _ := stores.GraphKinds.Of(spec); err != nil && named && !kind.Database {
		return nil, flagError("--graph", err)
	}
	return lg, err
}
