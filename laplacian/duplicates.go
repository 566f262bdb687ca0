package laplacian

import (
	"fmt"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
)

// DuplicateRule says what a pair of nodes given more than once means: two
// rows of an edge list naming the same two nodes, in either order, or two
// Neo4j relationships between them, in either direction. The graph is
// undirected, so "a,b" and "b,a" name the same pair.
//
// The rule decides the graph, and so Δ2 and σ: karate written in both
// directions is karate under DuplicatesMerge (Δ2 0.3564 at τ = 1) but the
// graph with every weight doubled under DuplicatesSum (Δ2 0.1375, σ 2.6×
// smaller). A graph is never changed without the rule saying so.
type DuplicateRule uint8

const (
	// DuplicatesMerge (the default): rows of one pair with the same
	// weight are one edge of that weight, so an edge list written in both
	// directions (a directed export of an undirected graph) or with a
	// repeated row is the graph written once. Rows of one pair whose
	// weights differ are refused (*DuplicateError): whether they are
	// parallel edges that add or an error in the data is the operator's
	// word, never a guess.
	DuplicatesMerge DuplicateRule = iota
	// DuplicatesSum: rows of one pair are parallel edges whose weights
	// add (the multigraph's Laplacian: two doors between two rooms).
	DuplicatesSum
	// DuplicatesReject: a pair given twice is ErrDuplicateEdge.
	DuplicatesReject
)

// duplicateRuleNames are the rules' names, in their order.
var duplicateRuleNames = [...]string{"merge", "sum", "reject"}

// DuplicateRuleNames lists the rules' names, the default first.
func DuplicateRuleNames() []string { return duplicateRuleNames[:] }

func (r DuplicateRule) String() string {
	if int(r) < len(duplicateRuleNames) {
		return duplicateRuleNames[r]
	}
	return fmt.Sprintf("DuplicateRule(%d)", r)
}

// ParamDuplicateEdges is the parameter that sets the rule (errkind.Param;
// a command's --duplicate-edges).
const ParamDuplicateEdges errkind.Param = "duplicate-edges"

// ParseDuplicateRule reads a rule by its name: merge, sum or reject
// ("" is merge, the default).
func ParseDuplicateRule(s string) (DuplicateRule, error) {
	if s == "" {
		return DuplicatesMerge, nil
	}
	for i, name := range duplicateRuleNames {
		if strings.EqualFold(s, name) {
			return DuplicateRule(i), nil
		}
	}
	return 0, errkind.Errorf("%s must be %s, got %q", ParamDuplicateEdges, strings.Join(duplicateRuleNames[:], ", "), s)
}

// ErrConflictingDuplicate is wrapped by a *DuplicateError: a pair given
// twice with different weights under DuplicatesMerge.
var ErrConflictingDuplicate = errkind.New(errkind.BadInput, "laplacian: a pair is given more than once with different weights")

// DuplicateError reports a pair given with two different weights under
// DuplicatesMerge, naming the pair by its keys, the two weights, and the
// rule that would read them as parallel edges.
type DuplicateError struct {
	U, V   string
	W1, W2 float64
}

func (e *DuplicateError) Error() string {
	return e.RenderText(func(p errkind.Param) string { return string(p) })
}

// RenderText names the rule's parameter as the caller spells it
// (errkind.Renderer).
func (e *DuplicateError) RenderText(name func(errkind.Param) string) string {
	return fmt.Sprintf("laplacian: the pair (%s, %s) is given with weight %v and with weight %v: rows of one pair are merged "+
		"into one edge only when their weights agree; if they are parallel edges whose weights add (two doors), pass %s sum, "+
		"else correct the data", e.U, e.V, e.W1, e.W2, name(ParamDuplicateEdges))
}

func (e *DuplicateError) Unwrap() error { return ErrConflictingDuplicate }

// Merges says how the edges given to the graph's builder (the rows of an
// edge list, the relationships read from Neo4j) became its edges.
type Merges struct {
	// Rows is the number of edges given, self-loops aside.
	Rows int `json:"rows"`
	// Pairs is the number of node pairs given more than once.
	Pairs int `json:"pairsRepeated"`
	// Merged is the number of rows merged into another row's edge
	// (Rows − the graph's edge count).
	Merged int `json:"rowsMerged"`
	// Rule is how they were merged: merge (one edge of the common weight)
	// or sum (parallel edges, weights added).
	Rule string `json:"rule"`
	// SelfLoops is the number of rows (a, a) left out of the graph (they
	// do not change L = D − W; FromEdges), and SelfLoopKey the node of the
	// first. A run reports them apart from the merges (selfLoopsSkipped).
	SelfLoops   int    `json:"-"`
	SelfLoopKey string `json:"-"`
}

// Changed says whether the graph differs from its rows read one edge
// each: pairs were merged or self-loops left out.
func (m Merges) Changed() bool { return m.Merged > 0 || m.SelfLoops > 0 }

// SelfLoopsText says in one line how many self-loops were left out and
// names one, e.g. "2 self-loops skipped, e.g. (a, a): a self-loop does
// not change the Laplacian L = D − W"; "" when there were none.
func (m Merges) SelfLoopsText() string {
	switch m.SelfLoops {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("1 self-loop skipped, (%s, %s): a self-loop does not change the Laplacian L = D − W", m.SelfLoopKey, m.SelfLoopKey)
	}
	return fmt.Sprintf("%d self-loops skipped, e.g. (%s, %s): a self-loop does not change the Laplacian L = D − W", m.SelfLoops, m.SelfLoopKey, m.SelfLoopKey)
}

// String says it in one line, e.g. "156 rows, 78 pairs listed twice
// merged as one edge each: 78 edges"; "" when nothing was merged.
func (m Merges) String() string {
	if m.Merged == 0 {
		return ""
	}
	times := "twice"
	if m.Merged > m.Pairs {
		times = fmt.Sprintf("more than once (%d rows)", m.Pairs+m.Merged)
	}
	how := "merged as one edge each"
	if m.Rule == DuplicatesSum.String() {
		how = "summed as parallel edges (weights added)"
	}
	pairs := fmt.Sprintf("%d pairs", m.Pairs)
	if m.Pairs == 1 {
		pairs = "1 pair"
		how = strings.Replace(how, "one edge each", "one edge", 1)
	}
	return fmt.Sprintf("%d rows, %s listed %s %s: %d edges", m.Rows, pairs, times, how, m.Rows-m.Merged)
}
