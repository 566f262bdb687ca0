package laplacian

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
)

// CSVError reports a problem on one line of a CSV edge list (1-based line
// number; 0 when the problem concerns the whole file).
type CSVError struct {
	Path string // the file, when read by LoadCSV
	Line int
	Err  error
}

func (e *CSVError) Error() string { return e.RenderText(nil) }

// RenderText is the error's text with the parameters the errors it wraps
// name written as name(p) (errkind.Renderer): a command's flags.
func (e *CSVError) RenderText(name func(errkind.Param) string) string {
	where := "edge list"
	if e.Path != "" {
		where = fmt.Sprintf("edge list %q", e.Path)
	}
	msg := strings.ReplaceAll(errkind.Render(e.Err, name), "laplacian: ", "")
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", where, msg)
	}
	return fmt.Sprintf("%s line %d: %s", where, e.Line, msg)
}
func (e *CSVError) Unwrap() error { return e.Err }

// ErrCSVFields is wrapped by a CSVError for a row without 2 or 3 fields.
var ErrCSVFields = errors.New("laplacian: csv: want source,target[,weight]")

// ReadCSV reads an undirected edge list, one edge per row:
//
//	source,target[,weight]
//
// The file follows graphcloak's CSV rules (package internal/csvin: a
// UTF-8 byte-order mark is ignored, lines starting with '#' are comments,
// blank lines are skipped, unquoted fields are trimmed, RFC 4180 quoting
// keeps a key verbatim). Nodes are numbered in order of first appearance.
// The weight defaults to 1 when the third field is absent. A row "key,"
// (an empty target, no weight) declares a node without edges: an isolated
// node, which an edge list cannot otherwise hold.
//
// Header: with opt.Header auto (the default) the first row is a header when
// its first two fields name the edge ends (source/target, from/to, src/dst,
// u/v, node1/node2, start/end; any case). A first row whose two keys are not
// numbers followed by a row whose keys are, or a first row with a third field
// that is not a number, is refused as an unrecognised header: pass
// opt.Header yes (--header yes) to skip it or no to read it as an edge.
//
// Every row is validated as it is read (weights that are zero, negative,
// NaN or infinite); errors are *CSVError values carrying the line number
// and wrapping an *EdgeError that names the keys (errors.Is works with the
// sentinel errors). A self-loop "a,a" is skipped and counted, its node
// kept, as from every source (FromEdges; Graph.Merges names one).
// Duplicate edges follow opt (merged by summing weights, or rejected with
// the line of the repeat). A file without edges (self-loops aside) is
// ErrEmptyGraph.
func ReadCSV(r io.Reader, opt Options) (*Graph, error) {
	return readCSV(r, opt, 0)
}

// readCSV is ReadCSV reading blocks of plain lines in parallel pieces
// (csvblock.go); pieces > 0 fixes their number whatever the block's
// size, pieces < 0 reads line by line (both for the tests, which compare
// the two).
func readCSV(r io.Reader, opt Options, pieces int) (*Graph, error) {
	cr := csvin.NewReader(r)

	ids := &edgeReader{index: make(map[string]int32), pieces: pieces}
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			ids.sizeHint = st.Size()
		}
	}
	if opt.Duplicates == DuplicatesReject {
		ids.seen = make(map[[2]int32]int)
	}
	read := func() (csvin.Record, error) {
		rec, err := cr.Read()
		var ce *csvin.Error
		if errors.As(err, &ce) {
			return rec, &CSVError{Line: ce.Line, Err: errors.New(ce.Msg)}
		}
		if err != nil && err != io.EOF {
			return rec, &CSVError{Err: err}
		}
		return rec, err
	}
	var pending []csvin.Record // the first rows, once the header is decided
	first, err := read()
	if err != nil && err != io.EOF {
		return nil, err
	}
	if err == nil {
		skip, herr := edgeHeader(first, opt.Header, read, &pending)
		if herr != nil {
			return nil, herr
		}
		if !skip {
			pending = append([]csvin.Record{first}, pending...)
		}
	}
	for _, rec := range pending {
		f := make([][]byte, len(rec.Fields))
		for i, x := range rec.Fields {
			f[i] = []byte(x)
		}
		if err := ids.edge(f, rec.Line); err != nil {
			return nil, err
		}
	}
	if err := ids.rest(cr); err != nil {
		return nil, err
	}
	keys, edges := ids.keys, ids.edges
	if len(edges) == ids.loops {
		loops := ""
		if ids.loops > 0 {
			loops = fmt.Sprintf(" (only %d self-loops, which are skipped)", ids.loops)
		}
		return nil, &CSVError{Err: fmt.Errorf("no edges%s: %w", loops, ErrEmptyGraph)}
	}
	if err := CheckKeyTypes(keys); err != nil {
		return nil, &CSVError{Err: err}
	}
	// The keys are distinct (numbered once each); the graph builds their
	// index if it is ever asked for one.
	g, err := fromEdges(0, keys, nil, true, edges, opt)
	if err != nil {
		return nil, &CSVError{Err: err}
	}
	return g, nil
}

// rest reads the edges after the header: blocks of plain lines in
// parallel pieces (unless pieces < 0), any other line by itself.
func (r *edgeReader) rest(cr *csvin.Reader) error {
	for {
		if r.pieces >= 0 {
			block, first, err := cr.ReadLines()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return &CSVError{Err: err}
			}
			if block != nil {
				if err := r.block(block, first); err != nil {
					return err
				}
				continue
			}
		}
		f, line, err := cr.ReadBytes()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var ce *csvin.Error
			if errors.As(err, &ce) {
				return &CSVError{Line: ce.Line, Err: errors.New(ce.Msg)}
			}
			return &CSVError{Err: err}
		}
		if err := r.edge(f, line); err != nil {
			return err
		}
	}
}

// ErrCSVHeader is wrapped by a CSVError for a first row that looks like a
// header whose names are not recognised.
var ErrCSVHeader = errkind.Errorf("the first row looks like a header but its column names are not recognised (use source,target[,weight], or %s yes to skip it, %s no to read it as an edge)", ParamHeader, ParamHeader)

// ParamHeader is the parameter ErrCSVHeader names: how the first row is
// read (errkind.Param; the root package's graphcloak.ParamHeader).
const ParamHeader errkind.Param = "header"

// edgeHeader decides whether the first row is a header. It may read the
// second row to decide; that row is appended to pending.
func edgeHeader(first csvin.Record, mode csvin.Header, read func() (csvin.Record, error), pending *[]csvin.Record) (bool, error) {
	switch mode {
	case csvin.HeaderYes:
		return true, nil
	case csvin.HeaderNo:
		return false, nil
	}
	f := first.Fields
	if len(f) >= 2 && csvin.IsName(f[0], csvin.SourceNames...) && csvin.IsName(f[1], csvin.TargetNames...) {
		if len(f) == 2 || csvin.IsName(f[2], csvin.WeightNames...) || !isNumber(f[2]) {
			return true, nil
		}
	}
	if len(f) == 3 && !isNumber(f[2]) {
		return false, &CSVError{Line: first.Line, Err: ErrCSVHeader}
	}
	if len(f) >= 2 && !isNumber(f[0]) && !isNumber(f[1]) {
		second, err := read()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		*pending = append(*pending, second)
		if s := second.Fields; len(s) >= 2 && isNumber(s[0]) && isNumber(s[1]) {
			return false, &CSVError{Line: first.Line, Err: ErrCSVHeader}
		}
	}
	return false, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// LoadCSV reads a CSV edge list from a file; see ReadCSV. Every error,
// including a file that cannot be opened, is a *CSVError with Path set
// (errors.Is(err, fs.ErrNotExist) still works).
func LoadCSV(path string, opt Options) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &CSVError{Path: path, Err: err}
	}
	defer f.Close()
	g, err := ReadCSV(f, opt)
	if err != nil {
		var ce *CSVError
		if errors.As(err, &ce) {
			ce.Path = path
			var kt *KeyTypeError
			if errors.As(err, &kt) && ce.Line == 0 {
				ce.Line = firstLineWith(path, kt.Key)
			}
			return nil, err
		}
		return nil, fmt.Errorf("laplacian: csv %q: %w", path, err)
	}
	return g, nil
}

// firstLineWith is the line of the first row of the edge list at path
// naming key as an edge end, or 0: the line an error names.
func firstLineWith(path, key string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	cr := csvin.NewReader(f)
	for {
		rec, err := cr.Read()
		if err != nil {
			return 0
		}
		if len(rec.Fields) >= 2 && (rec.Fields[0] == key || rec.Fields[1] == key) {
			return rec.Line
		}
	}
}

// edgeReader turns rows into edges, numbering nodes in order of first
// appearance. Keys that are canonical decimals (digits, no leading zero)
// are looked up in a table by value instead of the map, and get their
// string only when first seen: most edge lists number their nodes.
type edgeReader struct {
	keys  []string
	index map[string]int32
	byNum []int32 // node index + 1 of the decimal key v, 0 if unseen
	edges []Edge
	seen  map[[2]int32]int // first line of each pair, for RejectDuplicates
	loops int              // self-loops among edges

	parsers  []*blockParser // per piece of a block (csvblock.go)
	sizeHint int64          // bytes of the input if known, to size edges
	pieces   int            // > 0: pieces per block whatever its size (tests)
	fields   [][]byte       // scratch for a slow row

	// The last row's first key that is not a decimal and its index: an
	// edge list sorted by source (generators', exports') repeats it, and
	// a repeat skips the map (a fifth of reading LFR 10⁵'s "n0,n90452").
	lastK0 []byte
	lastU  int32
}

// maxNumKey bounds the decimal keys kept in the table: beyond it (or past
// 8 entries a node) keys go to the map, so a few huge ids cost no memory.
const maxNumKey = 1 << 31

func (r *edgeReader) id(k []byte) (int32, error) { return r.idOf(k, decimalOr(k)) }

// idOf is id with k's decimal value v already parsed (−1: not a decimal).
func (r *edgeReader) idOf(k []byte, v int64) (int32, error) {
	if v >= 0 && v < maxNumKey && v < 8*int64(len(r.keys))+1<<20 {
		if v >= int64(len(r.byNum)) {
			r.byNum = append(r.byNum, make([]int32, max(v+1-int64(len(r.byNum)), int64(len(r.byNum))))...)
		}
		if i := r.byNum[v]; i > 0 {
			return i - 1, nil
		}
		i, ok := r.index[string(k)] // seen while v was past the table's bound
		if !ok {
			var err error
			if i, err = r.add(string(k), false); err != nil {
				return 0, err
			}
		}
		r.byNum[v] = i + 1
		return i, nil
	}
	if i, ok := r.index[string(k)]; ok {
		return i, nil
	}
	return r.add(string(k), true)
}

// add numbers the new key k; mapped keys go into the map too. A key in
// the table is found there from now on, since the table's bound only
// grows, so it needs no map entry.
func (r *edgeReader) add(k string, mapped bool) (int32, error) {
	if len(r.keys) >= math.MaxInt32-1 {
		return 0, fmt.Errorf("more than %d nodes", math.MaxInt32-1)
	}
	i := int32(len(r.keys))
	r.keys = append(r.keys, k)
	if mapped {
		r.index[k] = i
	}
	return i, nil
}

// decimal parses a canonical non-negative decimal of at most 10 digits.
func decimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 10 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	v := int64(0)
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = 10*v + int64(c-'0')
	}
	return v, true
}

// edge validates one row (source,target[,weight]) and appends its edge.
func (r *edgeReader) edge(f [][]byte, line int) error {
	if len(f) != 2 && len(f) != 3 {
		return &CSVError{Line: line, Err: fmt.Errorf("%w: got %d fields", ErrCSVFields, len(f))}
	}
	if len(f) == 2 && len(f[0]) > 0 && len(f[1]) == 0 {
		// "key," declares a node without edges (an isolated node), as
		// export writes them: a graph leaves and comes back whole.
		if _, err := r.id(f[0]); err != nil {
			return &CSVError{Line: line, Err: err}
		}
		return nil
	}
	if len(f[0]) == 0 || len(f[1]) == 0 {
		return &CSVError{Line: line, Err: fmt.Errorf("%w: empty node key", ErrCSVFields)}
	}
	w := 1.0
	if len(f) == 3 && !(len(f[2]) == 1 && f[2][0] == '1') {
		var err error
		if w, err = strconv.ParseFloat(string(f[2]), 64); err != nil {
			return &CSVError{Line: line, Err: &EdgeError{string(f[0]), string(f[1]), math.NaN(), fmt.Errorf("%w: the weight is not a number", ErrBadWeight)}}
		}
	}
	if !(w > 0) || math.IsInf(w, 0) {
		return &CSVError{Line: line, Err: &EdgeError{string(f[0]), string(f[1]), w, ErrBadWeight}}
	}
	u, err := r.id(f[0])
	if err != nil {
		return &CSVError{Line: line, Err: err}
	}
	v, err := r.id(f[1])
	if err != nil {
		return &CSVError{Line: line, Err: err}
	}
	return r.addEdge(u, v, w, f[0], f[1], line)
}

// addEdge appends the edge u–v of line (keys ku, kv), refusing a repeated
// pair when duplicates are rejected. A self-loop is appended too, for
// fromEdges to leave out and count (a repeated one is no repeated pair).
func (r *edgeReader) addEdge(u, v int32, w float64, ku, kv []byte, line int) error {
	if u == v {
		r.loops++
	} else if r.seen != nil {
		pair := [2]int32{min(u, v), max(u, v)}
		if l, dup := r.seen[pair]; dup {
			return &CSVError{Line: line, Err: &EdgeError{string(ku), string(kv), w,
				fmt.Errorf("%w (first on line %d)", ErrDuplicateEdge, l)}}
		}
		r.seen[pair] = line
	}
	r.edges = append(r.edges, Edge{u, v, w})
	return nil
}
