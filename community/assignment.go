package community

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/laplacian"
)

// MissingNodesError reports graph nodes that a given assignment does not
// cover. Missing holds up to the first 10 keys in node index order; Count is
// the total number missing.
type MissingNodesError struct {
	Missing []string
	Count   int
}

func (e *MissingNodesError) Error() string {
	more := ""
	if e.Count > len(e.Missing) {
		more = fmt.Sprintf(" and %d more", e.Count-len(e.Missing))
	}
	return fmt.Sprintf("community: %d node(s) have no community: %s%s",
		e.Count, strings.Join(quoteAll(e.Missing), ", "), more)
}

// UnknownNodesError reports rows of an assignment file naming nodes the
// graph lacks: a key misspelt, or a file made for another graph. Unknown
// holds up to the first 10 such keys in sorted order; Count is the total.
type UnknownNodesError struct {
	Path    string // "" when not read from a file
	Unknown []string
	Count   int
}

func (e *UnknownNodesError) Error() string {
	more := ""
	if e.Count > len(e.Unknown) {
		more = fmt.Sprintf(" and %d more", e.Count-len(e.Unknown))
	}
	where := "the assignment"
	if e.Path != "" {
		where = e.Path
	}
	return fmt.Sprintf("community: %s names %d node(s) the graph does not have: %s%s (a misspelt key, or a file made for another graph)",
		where, e.Count, strings.Join(quoteAll(e.Unknown), ", "), more)
}

// ParseError reports a malformed line of an assignment file.
type ParseError struct {
	Path string // "" when read from a stream
	Line int    // 1-based
	Msg  string
}

func (e *ParseError) Error() string {
	where := "line"
	if e.Path != "" {
		where = e.Path + ": line"
	}
	return fmt.Sprintf("community: %s %d: %s", where, e.Line, e.Msg)
}

// ErrEmptyCommunity is returned for an empty community name.
var ErrEmptyCommunity = errors.New("community: empty community name")

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// FromAssignment builds a partition from a node-key → community-name map,
// for example a Neo4j node property written by GDS Louvain/Leiden or the
// rows of a CSV file. Community ids are dense and named by the one rule
// (Canonical: in order of each community's first node in g's key order);
// names[id] is the community's name in the map.
// Every node of g must be covered (a *MissingNodesError names the missing
// ones); keys that are not nodes of g are ignored here (LoadAssignment,
// which reads a user's file, refuses them). Communities are taken as
// given: a community that is disconnected in g is not split.
func FromAssignment(g *laplacian.Graph, byKey map[string]string) ([]int, []string, error) {
	n := g.N()
	part := make([]int, n)
	ids := make(map[string]int)
	var names []string
	miss := &MissingNodesError{}
	for i := 0; i < n; i++ {
		name, ok := byKey[g.Key(i)]
		if !ok {
			if len(miss.Missing) < 10 {
				miss.Missing = append(miss.Missing, g.Key(i))
			}
			miss.Count++
			continue
		}
		if name == "" {
			return nil, nil, fmt.Errorf("%w for node %q", ErrEmptyCommunity, g.Key(i))
		}
		id, seen := ids[name]
		if !seen {
			id = len(names)
			ids[name] = id
			names = append(names, name)
		}
		part[i] = id
	}
	if miss.Count > 0 {
		return nil, nil, miss
	}
	canon, k := Canonical(g, part)
	renamed := make([]string, k)
	for i, c := range part {
		renamed[canon[i]] = names[c]
	}
	return canon, renamed, nil
}

// LoadAssignment reads a CSV file of "node,community" rows (see
// ReadAssignment) and builds the partition with FromAssignment. A row
// naming a node g lacks is refused (*UnknownNodesError), as the readings
// are: a file made for another graph, or a misspelt key, is not silently
// half used.
func LoadAssignment(path string, g *laplacian.Graph) ([]int, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("community: %w", err)
	}
	defer f.Close()
	byKey, err := ReadAssignment(f)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Path = path
		}
		return nil, nil, err
	}
	if err := unknownNodes(g, byKey); err != nil {
		err.Path = path
		return nil, nil, err
	}
	return FromAssignment(g, byKey)
}

// unknownNodes is the *UnknownNodesError of the keys of byKey that are not
// nodes of g, or nil.
func unknownNodes(g *laplacian.Graph, byKey map[string]string) *UnknownNodesError {
	var unknown []string
	for k := range byKey {
		if _, ok := g.IndexOf(k); !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return &UnknownNodesError{Unknown: unknown[:min(len(unknown), 10)], Count: len(unknown)}
}

// ReadAssignment parses CSV rows "node,community" by graphcloak's CSV rules
// (package internal/csvin: byte-order mark ignored, '#' comment lines,
// unquoted fields trimmed, quoted keys verbatim). A first row naming its
// columns (node/id/key/nodeId/name, community/block/label) is a header and
// is skipped. A node listed twice with different communities is an error;
// a repeated identical row is accepted.
func ReadAssignment(r io.Reader) (map[string]string, error) {
	cr := csvin.NewReader(r)
	out := make(map[string]string)
	first := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var ce *csvin.Error
			if errors.As(err, &ce) {
				return nil, &ParseError{Line: ce.Line, Msg: ce.Msg}
			}
			return nil, fmt.Errorf("community: %w", err)
		}
		f, line := rec.Fields, rec.Line
		if len(f) != 2 {
			return nil, &ParseError{Line: line, Msg: fmt.Sprintf("want 2 fields (node,community), got %d", len(f))}
		}
		key, name := f[0], f[1]
		if first {
			first = false
			if csvin.IsName(key, csvin.KeyNames...) || csvin.IsName(name, csvin.CommunityNames...) {
				continue
			}
		}
		if key == "" {
			return nil, &ParseError{Line: line, Msg: "empty node key"}
		}
		if name == "" {
			return nil, &ParseError{Line: line, Msg: fmt.Sprintf("empty community for node %q", key)}
		}
		if old, dup := out[key]; dup && old != name {
			return nil, &ParseError{Line: line, Msg: fmt.Sprintf("node %q assigned to both %q and %q", key, old, name)}
		}
		out[key] = name
	}
	return out, nil
}

// WriteAssignment writes the partition part of the nodes keys as CSV
// rows "node,community" under that header, as ReadAssignment reads them.
func WriteAssignment(w io.Writer, keys []string, part []int) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"node", "community"})
	for i, c := range part {
		_ = cw.Write([]string{keys[i], strconv.Itoa(c)})
	}
	cw.Flush()
	return cw.Error()
}
