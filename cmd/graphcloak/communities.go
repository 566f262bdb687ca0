package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/stores"
)

type communitiesOptions struct {
	g          *globalOptions
	graph      string
	method     string // leiden | louvain
	resolution float64
	out        string
	mode       string // write | stream
	estimate   bool
}

// communitiesHelp is the communities command's help text.
const communitiesHelp = `Partition a graph into communities by maximising modularity with the Leiden
algorithm (Traag, Waltman & van Eck 2019): every community is connected, and
--resolution γ trades their size (larger γ, smaller communities). The summary
gives the count, the sizes, the modularity and the timings; --out writes the
partition as CSV node,community, the format locate --communities file:PATH
reads ("-": standard output). With --graph neo4j the community id is written
to every node of the projection as --community-write-property (GDS's
writeProperty; --write-property is the same flag).

--mode stream (GDS's .stream) writes nothing anywhere: the partition goes to
standard output, as CSV node,community (the summary on standard error), or
with -o json as the summary with a "nodes" array.

Leiden runs on --concurrency workers and gives the same partition, byte for
byte, for every --concurrency at a given --random-seed. --estimate loads the
graph, prints the estimated peak memory of the run (GDS's .estimate) and
stops; every summary carries it as estimatedBytes beside loadMillis and
computeMillis. The detection then holds to the estimate: Go's collector
runs when the process nears it (a soft memory limit) instead of whenever
the heap doubles, so the peak is the estimate rather than a matter of the
collector's timing. GOGC or GOMEMLIMIT in the environment override that.`

func newCommunitiesCmd(g *globalOptions) *cobra.Command {
	opts := &communitiesOptions{g: g}
	cmd := &cobra.Command{
		Use:   "communities",
		Short: "Detect communities (Leiden) and write them to a file or to Neo4j",
		Long:  communitiesHelp,
		Example: `  graphcloak communities --graph karate -o json
  graphcloak communities --graph sbm:sizes=300x200x100,pin=0.05,pout=0.002 --resolution 1.5 --out communities.csv
  graphcloak communities --graph file:edges.csv --estimate
  graphcloak communities --graph neo4j --node-labels Person --relationship-types KNOWS --write-property community
  graphcloak communities --graph neo4j --projection people --mode stream`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCommunities(cmd.Context(), opts, opts.g.stdout)
		},
	}
	f := cmd.Flags()
	graphFlag(f, &opts.graph, "", graphAny, "graph")
	f.StringVar(&opts.method, "communities", "leiden", "detector: "+communityKindsHelp("communities"))
	f.Float64Var(&opts.resolution, "resolution", 1, "modularity resolution γ: larger γ, smaller communities")
	f.StringVar(&opts.out, "out", "", "write the partition as CSV node,community (- for standard output)")
	f.StringVar(&opts.mode, "mode", "write", "write (to Neo4j with "+graphNeo4j+") or stream (the partition on standard output; nothing written)")
	f.BoolVar(&opts.estimate, "estimate", false, "load the graph, print the estimated peak memory of the detection and stop (GDS's .estimate)")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, "header", "duplicate-edges", "community-write-property", "batch-size", "concurrency", "random-seed")
	f.Lookup("community-write-property").Usage += " (GDS: --write-property)"
	// GDS calls it writeProperty: --write-property is the same flag here.
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "write-property" {
			name = "community-write-property"
		}
		return pflag.NormalizedName(name)
	})
	return cmd
}

func runCommunities(ctx context.Context, opts *communitiesOptions, out io.Writer) error {
	g := opts.g
	if err := checkCommunitiesCmd(opts); err != nil {
		return err
	}
	csvOut, out, err := perNodeOutput(g, opts.mode == "stream", opts.out, out)
	if err != nil {
		return err
	}
	defer csvOut.Abort()
	isDB := opts.graph == stores.Neo4jSpec
	st, err := stores.Open(ctx, g.cfg, stores.Options{Neo4j: isDB, CheckProjection: isDB, Pull: g.pullProgress, Merged: g.sayMerges})
	if err != nil {
		return err
	}
	defer st.Close(context.WithoutCancel(ctx))
	d, err := st.LoadDetection(ctx, opts.graph)
	if err != nil {
		return err
	}
	if opts.estimate {
		return printEstimate(out, g.output, d.Estimate())
	}
	stream := opts.mode == "stream"
	sum, err := d.Run(ctx, stores.DetectionRun{Method: opts.method, Resolution: opts.resolution, Stream: stream,
		CSV: csvOut, Out: opts.out, Nodes: stream && g.output == "json", Say: g.say, Phase: g.phase, Progress: g.progress})
	if err != nil {
		return err
	}
	if g.output == "json" {
		return printJSON(out, sum)
	}
	textreport.Communities(out, sum, connector.ReadProcedure)
	return nil
}

// checkCommunitiesCmd validates the communities command's flags.
func checkCommunitiesCmd(opts *communitiesOptions) error {
	if opts.mode != "write" && opts.mode != "stream" {
		return errkind.Usagef("--mode must be write or stream, got %q", opts.mode)
	}
	if opts.mode == "stream" && opts.out != "" {
		return errkind.Usagef("--mode stream writes the partition to standard output: drop --out")
	}
	if k, _, ok := community.SpecKinds.Of(opts.method); !ok || !communityKinds("communities")(k) {
		return errkind.Inputf("--communities must be %s, got %q", community.SpecKinds.Names(communityKinds("communities")), opts.method)
	}
	if err := checkPositiveFlag("resolution", opts.resolution); err != nil {
		return err
	}
	if opts.graph == stores.Neo4jSpec { // never over a node key, the readings or the communities read
		return opts.g.cfg.CheckCommunityWrite()
	}
	return nil
}

// printEstimate prints communities --estimate: the detection's estimated
// peak memory.
func printEstimate(out io.Writer, format string, est community.MemoryEstimate) error {
	if format == "json" {
		return printJSON(out, est)
	}
	textreport.CommunitiesEstimate(out, est)
	return nil
}
