package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
)

// exportOptions are the flags of "export".
type exportOptions struct {
	g              *globalOptions
	graph, out     string
	communitiesOut string
	communities    string
	resolution     float64
}

const exportHelp = `export writes any graph --graph reads (a file, a generator, a gt: dataset,
Neo4j's projection) as an edge list that file:PATH and load --edges read back
to the same graph: one row source,target[,weight] per edge (the weight column
only when a weight is not 1) and one row "key," per node without edges, so
isolated nodes survive (docs/input-files.md). The summary prints the graph's
fingerprint in key order — the one a sensitivity certificate names — so a
graph moved file → Neo4j → file can be checked to be the same graph.

--communities-out FILE writes the partition --communities names (Leiden at
--resolution by default; planted, louvain, file:PATH, property:NAME) as CSV
node,community, under the names every command uses.`

func newExportCmd(g *globalOptions) *cobra.Command {
	o := &exportOptions{g: g}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write any graph as an edge list (isolated nodes kept) and its communities",
		Long:  exportHelp,
		Example: `  graphcloak export --graph gt:netscience --out netscience.csv --communities-out communities.csv
  graphcloak export --graph neo4j --node-labels Room --relationship-types DOOR --node-key-property roomId --out rooms.csv`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runExport(cmd.Context(), o, g.stdout) },
	}
	f := cmd.Flags()
	graphFlag(f, &o.graph, "", graphAny, "graph to export")
	f.StringVar(&o.out, "out", "", "the edge list to write (required; - for standard output)")
	f.StringVar(&o.communitiesOut, "communities-out", "", "also write the communities as CSV node,community")
	f.StringVar(&o.communities, "communities", "leiden", "the partition --communities-out writes: "+communityKindsHelp("export"))
	f.Float64Var(&o.resolution, "resolution", 1, "modularity resolution γ of leiden and louvain")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, "header", "duplicate-edges", "random-seed")
	return cmd
}

// exportSummary is what export wrote.
type exportSummary struct {
	Graph          string                `json:"graph"`
	Out            string                `json:"out"`
	Isolated       int                   `json:"isolatedNodes"`
	Fingerprint    laplacian.Fingerprint `json:"fingerprint"`
	CommunitiesOut string                `json:"communitiesOut,omitempty"`
	Communities    int                   `json:"communityCount,omitempty"`
}

func runExport(ctx context.Context, o *exportOptions, out io.Writer) error {
	if o.graph == "" || o.out == "" {
		return errkind.Usagef("--graph and --out are required")
	}
	property, _, err := job.ScoredPartitionProperty(o.communities)
	if err != nil {
		return err
	}
	lg, err := loadGraphFlag(ctx, o.g, o.graph, property, true)
	if err != nil {
		return err
	}
	cg, _, err := laplacian.SortedByKey(lg.Graph)
	if err != nil {
		return err
	}
	sum := exportSummary{Graph: o.graph, Out: o.out, Fingerprint: cg.Fingerprint(), CommunitiesOut: o.communitiesOut}
	for i := range cg.N() {
		if cg.Degree(i) == 0 {
			sum.Isolated++
		}
	}
	if o.communitiesOut != "" {
		_, part, names, err := lg.ScoredPartition(ctx, o.communities, o.resolution, uint64(o.g.cfg.Write.RandomSeed))
		if err != nil {
			return err
		}
		if sum.Communities, err = writeCommunities(o.communitiesOut, cg.Keys(), lg.Graph, part, names); err != nil {
			return err
		}
	}
	edges, err := atomicfile.Open("out", o.out, out)
	if err != nil {
		return err
	}
	defer edges.Abort()
	if err := edges.CommitWith(func(w io.Writer) error { return laplacian.WriteCSV(w, cg) }); err != nil {
		return err
	}
	if edges.Stdout() {
		out = o.g.stderr
	}
	if o.g.output == "json" {
		return printJSON(out, sum)
	}
	fmt.Fprintf(out, "%s: %d nodes (%d without edges), %d relationships → %s\nfingerprint (key order): %s\n",
		sum.Graph, sum.Fingerprint.Nodes, sum.Isolated, sum.Fingerprint.Edges, sum.Out, sum.Fingerprint.SHA256)
	if sum.CommunitiesOut != "" {
		fmt.Fprintf(out, "communities: %d → %s\n", sum.Communities, sum.CommunitiesOut)
	}
	return nil
}

// writeCommunities writes each node of g (in the order of keys, the
// edge list's) with its community's name (names, else its id) to path,
// and returns the number of communities.
func writeCommunities(path string, keys []string, g *laplacian.Graph, part []int, names []string) (int, error) {
	f, err := atomicfile.Open("communities-out", path, nil)
	if err != nil {
		return 0, err
	}
	defer f.Abort()
	seen := map[int]bool{}
	err = f.CommitWith(func(w io.Writer) error {
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"node", "community"})
		for _, k := range keys {
			i, _ := g.IndexOf(k)
			c := part[i]
			seen[c] = true
			name := strconv.Itoa(c)
			if c < len(names) {
				name = names[c]
			}
			_ = cw.Write([]string{k, name})
		}
		cw.Flush()
		return cw.Error()
	})
	return len(seen), err
}
