package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
)

type communitiesOptions struct {
	g          *globalOptions
	graph      string
	method     string // leiden | louvain
	resolution float64
	out        string
}

// communitiesHelp is the communities command's help text.
const communitiesHelp = `Partition a graph into communities by maximising modularity with the Leiden
algorithm (Traag, Waltman & van Eck 2019): every community is connected, and
--resolution γ trades their size (larger γ, smaller communities). The summary
gives the count, the sizes, the modularity and the timings; --out writes the
partition as CSV node,community, the format locate --communities file:PATH
reads. With --graph neo4j the community id is written to every node of the
projection as --community-write-property (GDS's writeProperty).`

func newCommunitiesCmd(g *globalOptions) *cobra.Command {
	opts := &communitiesOptions{g: g}
	cmd := &cobra.Command{
		Use:   "communities",
		Short: "Detect communities (Leiden) and write them to a file or to Neo4j",
		Long:  communitiesHelp,
		Example: `  graphcloak communities --graph karate -o json
  graphcloak communities --graph sbm:sizes=300x200x100,pin=0.05,pout=0.002 --resolution 1.5 --out communities.csv
  graphcloak communities --graph neo4j --node-labels Person --relationship-types KNOWS --community-write-property community`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCommunities(cmd.Context(), opts, opts.g.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.graph, "graph", "", "graph: neo4j (the configured projection), a generator (karate, sbm:…) or file:PATH")
	f.StringVar(&opts.method, "communities", "leiden", "detector: leiden or louvain")
	f.Float64Var(&opts.resolution, "resolution", 1, "modularity resolution γ: larger γ, smaller communities")
	f.StringVar(&opts.out, "out", "", "write the partition as CSV node,community")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, "header", "community-write-property", "batch-size", "concurrency", "random-seed")
	return cmd
}

// communitiesSummary is the JSON of the communities command.
type communitiesSummary struct {
	Graph                 string  `json:"graph"`
	NodeCount             int     `json:"nodeCount"`
	RelationshipCount     int     `json:"relationshipCount"`
	Method                string  `json:"method"`
	Resolution            float64 `json:"resolution"`
	RandomSeed            int64   `json:"randomSeed"`
	CommunityCount        int     `json:"communityCount"`
	CommunitySizes        []int   `json:"communitySizes"` // largest first
	Modularity            float64 `json:"modularity"`
	ComputeMillis         int64   `json:"computeMillis"`
	WriteProperty         string  `json:"writeProperty,omitempty"`
	NodePropertiesWritten int     `json:"nodePropertiesWritten"`
	WriteMillis           int64   `json:"writeMillis"`
	Out                   string  `json:"out,omitempty"`
}

func runCommunities(ctx context.Context, opts *communitiesOptions, out io.Writer) error {
	g := opts.g
	cfg := &g.cfg.Config
	if err := checkCommunitiesCmd(opts); err != nil {
		return err
	}
	var outFile *pendingFile
	if opts.out != "" {
		var err error
		if outFile, err = createPending(opts.out); err != nil {
			return inputErrorf("--out: %w", err)
		}
		defer outFile.Abort()
	}
	pull, endPull := g.pullProgress()
	lg, err := loadGraph(ctx, cfg, opts.graph, loadOptions{Progress: pull})
	endPull()
	if err != nil {
		return err
	}
	defer lg.Close(context.WithoutCancel(ctx))
	gr := lg.Graph
	start := time.Now()
	seed := uint64(cfg.Write.RandomSeed)
	var part []int
	part, err = interruptible(ctx, func() ([]int, error) {
		if opts.method == "leiden" {
			return community.Leiden(gr, community.LeidenOptions{Resolution: opts.resolution, Seed: seed})
		}
		return community.Louvain(gr, opts.resolution, seed)
	})
	if err != nil {
		return err
	}
	sum := &communitiesSummary{Graph: opts.graph, NodeCount: gr.N(), RelationshipCount: gr.NumEdges(),
		Method: opts.method, Resolution: opts.resolution, RandomSeed: cfg.Write.RandomSeed,
		Modularity: community.Modularity(gr, part, opts.resolution), ComputeMillis: time.Since(start).Milliseconds()}
	sum.CommunitySizes = communitySizes(part)
	sum.CommunityCount = len(sum.CommunitySizes)
	if outFile != nil {
		rows := [][]string{{"node", "community"}}
		for i, c := range part {
			rows = append(rows, []string{gr.Key(i), strconv.Itoa(c)})
		}
		if err := outFile.WriteCSV(rows); err != nil {
			return err
		}
		sum.Out = opts.out
	}
	if opts.graph == neo4jSpec {
		if err := writeCommunities(ctx, g, lg, part, sum); err != nil {
			return err
		}
	}
	if g.output == "json" {
		return printJSON(out, sum)
	}
	printCommunities(out, sum)
	return nil
}

// checkCommunitiesCmd validates the communities command's flags.
func checkCommunitiesCmd(opts *communitiesOptions) error {
	cfg := &opts.g.cfg.Config
	if opts.method != "leiden" && opts.method != "louvain" {
		return inputErrorf("--communities must be leiden or louvain, got %q", opts.method)
	}
	if err := checkPositive("resolution", opts.resolution); err != nil {
		return err
	}
	if opts.graph == neo4jSpec && !config.ValidIdentifier(cfg.Write.CommunityWriteProperty) {
		return inputErrorf("--community-write-property: %q is not a valid property name", cfg.Write.CommunityWriteProperty)
	}
	return nil
}

// communitySizes returns the members per community, largest first.
func communitySizes(part []int) []int {
	count := map[int]int{}
	for _, c := range part {
		count[c]++
	}
	sizes := make([]int, 0, len(count))
	for _, s := range count {
		sizes = append(sizes, s)
	}
	slices.SortFunc(sizes, func(a, b int) int { return b - a })
	return sizes
}

// writeCommunities writes each node's community id to the configured
// community write property.
func writeCommunities(ctx context.Context, g *globalOptions, lg *loadedGraph, part []int, sum *communitiesSummary) error {
	cfg := &g.cfg.Config
	rows := make([]connector.NodeProps, len(part))
	for i, c := range part {
		rows[i] = connector.NodeProps{Key: lg.Graph.Key(i), Props: map[string]any{cfg.Write.CommunityWriteProperty: int64(c)}}
	}
	st, err := lg.Client.WriteProperties(ctx, lg.Projection, rows, connector.WriteOptions{
		BatchSize: cfg.Write.BatchSize, Concurrency: cfg.Write.Concurrency, Progress: g.progress("write-back")})
	if err != nil {
		return err
	}
	sum.WriteProperty, sum.NodePropertiesWritten, sum.WriteMillis = cfg.Write.CommunityWriteProperty, st.NodePropertiesWritten, st.WriteMillis
	return nil
}

// printCommunities prints the summary as text (at most 20 sizes).
func printCommunities(out io.Writer, sum *communitiesSummary) {
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships\n", sum.Graph, sum.NodeCount, sum.RelationshipCount)
	fmt.Fprintf(out, "%s at resolution %g: %d communities, modularity %.4f, %d ms\n", sum.Method, sum.Resolution, sum.CommunityCount, sum.Modularity, sum.ComputeMillis)
	shown := sum.CommunitySizes[:min(len(sum.CommunitySizes), 20)]
	strs := make([]string, len(shown))
	for i, s := range shown {
		strs[i] = strconv.Itoa(s)
	}
	more := ""
	if len(sum.CommunitySizes) > len(shown) {
		more = fmt.Sprintf(" … (%d more)", len(sum.CommunitySizes)-len(shown))
	}
	fmt.Fprintf(out, "sizes: %s%s\n", strings.Join(strs, ", "), more)
	if sum.WriteProperty != "" {
		fmt.Fprintf(out, "wrote %s on %d nodes in %d ms\n", sum.WriteProperty, sum.NodePropertiesWritten, sum.WriteMillis)
	}
	if sum.Out != "" {
		fmt.Fprintf(out, "partition: %s\n", sum.Out)
	}
}
