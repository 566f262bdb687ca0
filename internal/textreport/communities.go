package textreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/community"
)

// maxSizesShown is how many community sizes a detection's summary lists
// before it counts the rest.
const maxSizesShown = 20

// Communities prints a detection's summary: the graph, how Neo4j was read
// (readProcedure is the name of graphcloak's read procedure), the
// communities found, their sizes (at most maxSizesShown) and where the
// partition went.
func Communities(out io.Writer, sum *community.Summary, readProcedure string) {
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships\n", sum.Graph, sum.NodeCount, sum.RelationshipCount)
	switch sum.ReadPath {
	case "procedure":
		fmt.Fprintf(out, "read in %d ms by graphcloak's Neo4j plugin (%s)\n", sum.LoadMillis, readProcedure)
	case "cypher":
		why := "the server has no " + readProcedure + ": install graphcloak's plugin to read several times faster, docs/neo4j.md"
		if sum.ReadNote != "" {
			why = sum.ReadNote
		}
		fmt.Fprintf(out, "read in %d ms by Cypher (%s)\n", sum.LoadMillis, why)
	}
	fmt.Fprintf(out, "%s at resolution %g: %d communities, modularity %.4f, %d ms\n", sum.Method, sum.Resolution, sum.CommunityCount, sum.Modularity, sum.ComputeMillis)
	shown := sum.CommunitySizes[:min(len(sum.CommunitySizes), maxSizesShown)]
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

// CommunitiesEstimate prints a detection's estimated peak memory.
func CommunitiesEstimate(out io.Writer, est community.MemoryEstimate) {
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships\nestimated peak memory: %s (%d bytes)\nestimated time: about %.2g s (%g µs a relationship on the reference machine)\n",
		est.Graph, est.NodeCount, est.RelationshipCount, est.Estimated, est.EstimatedBytes, est.EstimatedSeconds, community.DetectionMicrosPerEdge)
}
