package inputfiles

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/laplacian"
)

// LoadFiles are an edge list and its readings, read to be loaded into
// Neo4j (connector.Client.Load).
type LoadFiles struct {
	Edges []connector.LoadEdge
	// Merges say how rows naming one pair (in either direction) became
	// one edge each (laplacian.DuplicateRule).
	Merges           laplacian.Merges
	DuplicatesMerged int                // rows merged into another row's edge (Merges.Merged)
	Values           map[string]float64 // readings by node key (nil: none)
	Isolated         []string           // keys of nodes without edges
	paths            []string
}

// ReadLoadFiles reads the edge list at edges and the readings at values
// ("": none; "-" reads stdin) and checks that the readings name nodes of
// the edge list. The edge list is read by the project's CSV rules, so
// that what is loaded is what the graph spec file:EDGES reads; both files'
// first rows are read under header (the configured input.header: auto, yes
// or no), and a pair listed twice follows dups (input.duplicateEdges).
func ReadLoadFiles(stdin io.Reader, edges, values, header string, dups laplacian.DuplicateRule) (*LoadFiles, error) {
	h, err := csvin.ParseHeader(header)
	if err != nil {
		return nil, errkind.Inputf("%w", err)
	}
	var g *laplacian.Graph
	opt := laplacian.Options{Header: h, Duplicates: dups}
	if edges == "-" {
		g, err = laplacian.ReadCSV(stdin, opt)
	} else {
		g, err = laplacian.LoadCSV(edges, opt)
	}
	if err != nil {
		// Keys of two types: refused in load's words, as the database's
		// rule (connector.Load) would refuse them, with their line.
		var kt *laplacian.KeyTypeError
		if errors.As(err, &kt) {
			lf := &LoadFiles{paths: []string{edges}}
			return nil, errkind.Inputf("%w%s", &connector.LoadKeyError{Key: kt.Key, Reason: kt.Reason()}, lf.KeyLine(kt.Key))
		}
		if errkind.Of(err) == errkind.Internal {
			return nil, errkind.Inputf("%s: %w", ParamEdges, err)
		}
		return nil, errkind.Errorf("%s: %w", ParamEdges, err)
	}
	lf := GraphLoadFiles(g)
	lf.paths = []string{edges, values}
	if values == "" {
		return lf, nil
	}
	if lf.Values, err = ReadGraphValues(stdin, values, header, g); err != nil {
		return nil, err
	}
	return lf, nil
}

// ReadGraphValues reads the readings at values ("-": stdin) and checks
// that they name nodes of g.
func ReadGraphValues(stdin io.Reader, values, header string, g *laplacian.Graph) (map[string]float64, error) {
	vals, err := readReadings(stdin, values, header, graphcloak.ReadValues)
	if err != nil {
		return nil, err
	}
	if _, err := graphcloak.ValuesByKey(g, vals); err != nil {
		return nil, err
	}
	return vals, nil
}

// KeyLine names where key first appears in the files (" (line N of
// FILE)"), or "" (standard input, or not found as a field).
func (lf *LoadFiles) KeyLine(key string) string {
	for _, name := range lf.paths {
		if name == "" || name == "-" {
			continue
		}
		if line := firstLineWith(name, key); line > 0 {
			return fmt.Sprintf(" (line %d of %s)", line, name)
		}
	}
	return ""
}

// firstLineWith is the first line of the CSV file name with key as a
// field, or 0.
func firstLineWith(name, key string) int {
	f, err := os.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		for _, field := range strings.Split(sc.Text(), ",") {
			if strings.Trim(strings.TrimSpace(field), `"`) == key {
				return line
			}
		}
	}
	return 0
}

// GraphLoadFiles is what load writes of g: its edges, its nodes without
// edges and how its input's repeated rows were merged.
func GraphLoadFiles(g *laplacian.Graph) *LoadFiles {
	lf := &LoadFiles{Edges: make([]connector.LoadEdge, 0, g.NumEdges()), Merges: g.Merges(), DuplicatesMerged: g.DuplicatesMerged()}
	g.ForEachEdge(func(i, j int, w float64) {
		lf.Edges = append(lf.Edges, connector.LoadEdge{Source: g.Key(i), Target: g.Key(j), Weight: w})
	})
	for i := range g.N() {
		if g.Degree(i) == 0 {
			lf.Isolated = append(lf.Isolated, g.Key(i))
		}
	}
	return lf
}
