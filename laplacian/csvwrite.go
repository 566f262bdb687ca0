package laplacian

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// WriteCSV writes g as an edge list ReadCSV reads back to the same graph
// (the same keys, edges and weights, so the same fingerprint): a header
// source,target[,weight] (the weight column only when some weight is not
// 1), one row per edge, then one row "key," per node without edges (an
// isolated node). Weights are written in the shortest form that reads
// back exactly; a key that the CSV rules would change (a comma, a quote,
// a line break, surrounding spaces, a leading '#') is quoted.
func WriteCSV(w io.Writer, g *Graph) error {
	weighted := false
	g.ForEachEdge(func(_, _ int, wt float64) { weighted = weighted || wt != 1 })
	bw := bufio.NewWriter(w)
	bw.WriteString("source,target")
	if weighted {
		bw.WriteString(",weight")
	}
	bw.WriteByte('\n')
	g.ForEachEdge(func(i, j int, wt float64) {
		bw.WriteString(csvKey(g.Key(i)))
		bw.WriteByte(',')
		bw.WriteString(csvKey(g.Key(j)))
		if weighted {
			bw.WriteByte(',')
			bw.WriteString(strconv.FormatFloat(wt, 'g', -1, 64))
		}
		bw.WriteByte('\n')
	})
	for i := range g.N() {
		if g.Degree(i) == 0 {
			bw.WriteString(csvKey(g.Key(i)))
			bw.WriteString(",\n")
		}
	}
	return bw.Flush()
}

// csvKey is key as a CSV field that reads back verbatim.
func csvKey(key string) string {
	if key != strings.TrimSpace(key) || strings.HasPrefix(key, "#") || strings.ContainsAny(key, ",\"\r\n") {
		return `"` + strings.ReplaceAll(key, `"`, `""`) + `"`
	}
	return key
}
