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
	var err error
	// put writes s unless a write failed before (the first error is kept).
	put := func(parts ...string) {
		for _, p := range parts {
			if err == nil {
				_, err = bw.WriteString(p)
			}
		}
	}
	put("source,target")
	if weighted {
		put(",weight")
	}
	put("\n")
	g.ForEachEdge(func(i, j int, wt float64) {
		put(csvKey(g.Key(i)), ",", csvKey(g.Key(j)))
		if weighted {
			put(",", strconv.FormatFloat(wt, 'g', -1, 64))
		}
		put("\n")
	})
	for i := range g.N() {
		if g.Degree(i) == 0 {
			put(csvKey(g.Key(i)), ",\n")
		}
	}
	if err != nil {
		return err
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
