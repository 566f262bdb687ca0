package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/stores"
)

// loadOptionsCmd are the flags of "load".
type loadOptionsCmd struct {
	g      *globalOptions
	edges  string
	graph  string // --graph: any graph kind instead of --edges
	values string
	stdin  io.Reader
	// estimate: only the modelled time of the write (--estimate).
	estimate bool
}

const loadHelp = `load writes a graph from CSV files into Neo4j, so that every other command
can read it with --graph neo4j and the same projection flags: no cypher-shell
needed. --edges FILE is an edge list (source,target[,weight]; the rules of
docs/input-files.md); each endpoint becomes a node of --node-labels (one
label) keyed by --node-key-property, each row a relationship of
--relationship-types (one type), its weight in --relationship-weight-property
when given. --values FILE (node,value) sets the readings in --value-property.
--graph KIND instead of --edges loads any graph --graph reads (a file, a
generator, a gt: dataset); nodes without edges are loaded as nodes alone,
and export writes the graph back out (same fingerprint).

Writes are MERGE and SET in batches (--batch-size), so loading the same files
again changes nothing, and a load interrupted half-way is completed by
running it again. An undirected edge is one relationship whatever its
direction, in the files or already stored; rows repeating a pair (either
direction) follow --duplicate-edges: merge (default) makes them one edge when
their weights agree and refuses them when not, sum adds their weights
(parallel edges); the count is printed. Keys that are all integers are stored
as integers; keys of two types (integers beside others, in the files or
against the label's stored keys) and keys that are not valid UTF-8 are
refused before anything is written. The key gets a uniqueness constraint
(an index where stored keys repeat), created if missing.

--estimate reads and checks the files and prints how long the write is
modelled to take (table or -o json), connecting to nothing.`

func newLoadCmd(g *globalOptions) *cobra.Command {
	o := &loadOptionsCmd{g: g}
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Load a graph (and readings) from CSV files into Neo4j",
		Long:  loadHelp,
		Example: `  graphcloak load --edges examples/rooms.csv --values examples/rooms-readings.csv \
      --node-labels Room --relationship-types DOOR --node-key-property roomId \
      --relationship-weight-property conductance --value-property reading

  # How long will it take? (the files read and checked; nothing written)
  graphcloak load --edges edges.csv --node-labels Room --relationship-types DOOR \
      --node-key-property roomId --estimate`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.stdin = cmd.InOrStdin()
			return runLoad(cmd.Context(), o, g.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.edges, "edges", "", "edge list CSV source,target[,weight] (or --graph; - for standard input)")
	graphFlag(f, &o.graph, "", graphAny, "graph to load instead of --edges (any kind but the database; isolated nodes kept)")
	f.StringVar(&o.values, "values", "", "readings CSV node,value to write to --value-property (- for standard input)")
	f.BoolVar(&o.estimate, "estimate", false, "read and check the files, print how long the write to Neo4j is modelled to take (GDS's .estimate) and stop: nothing connected or written")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, "value-property", "batch-size", "header", "duplicate-edges")
	return cmd
}

func runLoad(ctx context.Context, o *loadOptionsCmd, out io.Writer) error {
	cfg := &o.g.cfg.Config
	spec, err := loadSpec(o, cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	files, err := loadFiles(ctx, o, cfg)
	if err != nil {
		return err
	}
	source := o.edges // the estimate names what is loaded: --edges or --graph
	if o.graph != "" {
		source = o.graph
	}
	if o.estimate {
		return printLoadEstimate(o.g, out, source, files, time.Since(start))
	}
	if e := loadEstimate(source, files, time.Since(start), time.Now()); e.Seconds > longStep.Seconds() {
		o.g.say(cost.Line("the load", e.Seconds, e.Steps[1:]))
	}
	spec.Progress = progressbar.ByStage(func(stage string) func(done, total int) { return o.g.progress("load " + stage) })
	st, err := stores.Open(ctx, o.g.cfg, stores.Options{Neo4j: true, Logger: o.g.logger})
	if err != nil {
		return err
	}
	defer st.Close(context.WithoutCancel(ctx))
	sum, err := st.Load(ctx, spec, files)
	if err != nil {
		return err
	}
	if o.g.output == "json" {
		return printJSON(out, sum)
	}
	return printLoad(out, sum, spec.KeyProperty, spec.ValueProperty)
}

// loadSpec is the load that load's flags ask for into the configured
// projection, its names checked (graphcloak's own labels refused), or
// why they are refused: before any file is read.
func loadSpec(o *loadOptionsCmd, cfg *config.Config) (connector.LoadSpec, error) {
	if err := checkLoadFlags(o, cfg.Projection); err != nil {
		return connector.LoadSpec{}, err
	}
	return cfg.LoadSpec()
}

// loadFiles is what load writes: the edge list and readings files, or
// the graph --graph names (its nodes without edges kept, its merged rows
// counted) with the readings file. Self-loops are skipped, as by every
// reader, and said on stderr.
func loadFiles(ctx context.Context, o *loadOptionsCmd, cfg *config.Config) (*inputfiles.LoadFiles, error) {
	dups, _ := laplacian.ParseDuplicateRule(cfg.Input.DuplicateEdges) // validated by config
	if o.graph == "" {
		files, err := inputfiles.ReadLoadFiles(o.stdin, o.edges, o.values, cfg.Input.Header, dups)
		if err == nil && files.Merges.SelfLoops > 0 {
			o.g.say("--edges " + o.edges + ": " + files.Merges.SelfLoopsText())
		}
		return files, err
	}
	lg, err := loadGraphFlag(ctx, o.g, o.graph, "", true)
	if err != nil {
		return nil, err
	}
	files := inputfiles.GraphLoadFiles(lg.Graph)
	if o.values != "" {
		if files.Values, err = inputfiles.ReadGraphValues(o.stdin, o.values, cfg.Input.Header, lg.Graph); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// checkLoadFlags checks load's flags and the projection it loads into.
func checkLoadFlags(o *loadOptionsCmd, p config.Projection) error {
	switch {
	case (o.edges == "") == (o.graph == ""):
		return errkind.Usagef("load needs one of --edges FILE (an edge list source,target[,weight]) or --graph KIND")
	case o.graph == stores.Neo4jSpec:
		return errkind.Usagef("%s is where load writes: load --graph reads any other kind", graphNeo4j)
	case o.edges == "-" && o.values == "-":
		return errkind.Usagef("--edges - and --values - cannot both read standard input")
	case len(p.NodeLabels) != 1:
		return errkind.Usagef("--node-labels must name exactly one label for load, got %d", len(p.NodeLabels))
	case len(p.RelationshipTypes) != 1:
		return errkind.Usagef("--relationship-types must name exactly one type for load, got %d", len(p.RelationshipTypes))
	case p.NodeKeyProperty == "":
		return errkind.Usagef("--node-key-property is required: it identifies the nodes (e.g. roomId)")
	case o.values != "" && p.ValueProperty == "":
		return errkind.Usagef("--values needs --value-property (the property the readings go to)")
	case p.ValueProperty != "" && o.values == "":
		return errkind.Usagef("--value-property needs --values FILE (the readings to write)")
	}
	return nil
}

// printLoad prints what load wrote.
func printLoad(out io.Writer, sum *stores.LoadSummary, keyProperty, valueProperty string) error {
	st, merged := &sum.LoadStats, sum.DuplicateRowsMerged
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "database\t%s\n", sum.Database)
	fmt.Fprintf(tw, "nodes\t%d (:%s, key %s, unique by a %s)\n", st.NodesLoaded, sum.NodeLabel, keyProperty, st.KeyIndex)
	fmt.Fprintf(tw, "relationships\t%d (:%s, undirected: one per edge whatever its direction)\n", st.RelationshipsLoaded, sum.RelationshipType)
	if merged > 0 {
		fmt.Fprintf(tw, "duplicate rows\t%s\n", mergesText(sum.Merges))
	}
	if sum.SelfLoopsSkipped > 0 {
		fmt.Fprintf(tw, "self-loops\t%s\n", sum.Merges.SelfLoopsText())
	}
	if valueProperty != "" {
		fmt.Fprintf(tw, "readings\t%d (%s)\n", st.ValuesWritten, valueProperty)
	}
	fmt.Fprintf(tw, "write\t%d ms\n", st.WriteMillis)
	return tw.Flush()
}

// loadEstimate is load --estimate (cost.Load): the files' read
// (measured) and the write by the reference rate.
func loadEstimate(edges string, files *inputfiles.LoadFiles, read time.Duration, start time.Time) *cost.Estimate {
	return cost.Load(edges, files.NodeCount(), len(files.Edges), len(files.Values), read, start)
}

// printLoadEstimate prints load --estimate.
func printLoadEstimate(g *globalOptions, out io.Writer, edges string, files *inputfiles.LoadFiles, read time.Duration) error {
	return printWorkEstimate(g, out, loadEstimate(edges, files, read, time.Now()))
}
