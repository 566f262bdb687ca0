package laplacian

import (
	"bytes"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/graphcloak/graphcloak/internal/csvin"
)

// Reading an edge list in blocks. Splitting lines, trimming fields and
// parsing decimal keys and weights is most of the reading time and needs
// no state, so the lines of a block (csvin.ReadLines) are parsed in
// parallel pieces; numbering the nodes (in order of first appearance) and
// appending the edges stay sequential, in line order, so the graph, the
// node order and the first error reported are those of reading line by
// line. A row that is not a plain edge (wrong field count, self-loop, bad
// weight) is read again by edge, line by line, which reports or counts it.

// edgeRow is one parsed row of a block. It holds no pointers (the keys
// are offsets into the piece), so the garbage collector need not scan the
// rows.
type edgeRow struct {
	k0, k1 span    // the keys (for a slow row, k0 is the whole line)
	a, b   int64   // the keys' decimal values, −1 for a key that is not a canonical decimal
	w      float64 // the weight
	line   int     // line within the piece
	before int     // fast rows before this one in the piece
	slow   bool    // to be read by edge
	skip   bool    // a comment or blank line
}

// span is piece[from:to].
type span struct{ from, to int32 }

func (s span) of(piece []byte) []byte { return piece[s.from:s.to] }

// spanOf returns the span of sub, a subslice of piece.
func spanOf(piece, sub []byte) span {
	from := int32(cap(piece) - cap(sub))
	return span{from, from + int32(len(sub))}
}

// blockParser holds one piece's rows and split scratch between blocks.
// The commonest row, "u,v" with two canonical decimal keys, is kept as
// just its two values in pairs (fast rows); every other row, and every
// skipped line, is an edgeRow in rows whose before field counts the fast
// rows ahead of it. Between two entries of rows the fast rows are
// consecutive lines, so their line numbers need not be stored.
type blockParser struct {
	piece  []byte
	pairs  []uint32
	rows   []edgeRow
	fields [][]byte
	lines  int
}

// parallelBlock is the smallest block split across goroutines.
const parallelBlock = 1 << 16

// block reads the lines of block, the first of them numbered first.
func (r *edgeReader) block(block []byte, first int) error {
	pieces := 1
	switch {
	case r.pieces > 0:
		pieces = r.pieces
	case len(block) >= parallelBlock:
		pieces = runtime.GOMAXPROCS(0)
	}
	for len(r.parsers) < pieces {
		r.parsers = append(r.parsers, &blockParser{})
	}
	bounds := pieceBounds(block, pieces)
	var wg sync.WaitGroup
	for p := 0; p+1 < len(bounds); p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.parsers[p].parse(block[bounds[p]:bounds[p+1]])
		}()
	}
	wg.Wait()
	r.reserve(len(block), r.parsers[:len(bounds)-1])
	line := first
	for p := 0; p+1 < len(bounds); p++ {
		if err := r.piece(r.parsers[p], line); err != nil {
			return err
		}
		line += r.parsers[p].lines
	}
	return nil
}

// piece adds the edges of one parsed piece, whose first line is numbered
// first, in line order.
func (r *edgeReader) piece(bp *blockParser, first int) error {
	done, line := 0, first // fast rows added; the line of the next one
	for i := range bp.rows {
		e := &bp.rows[i]
		if err := r.fast(bp.pairs[2*done:2*e.before], line); err != nil {
			return err
		}
		done, line = e.before, first+e.line+1
		if e.skip {
			continue
		}
		if err := r.row(bp.piece, e, first+e.line); err != nil {
			return err
		}
	}
	return r.fast(bp.pairs[2*done:], line)
}

// fast adds the edges of consecutive fast rows (pairs of decimal keys),
// the first on line first. Keys numbered before are looked up in the
// table in a tight loop, whose independent loads the processor overlaps
// (looking them up while parsing, or through idOf, waited on each miss).
func (r *edgeReader) fast(pairs []uint32, first int) error {
	byNum := r.byNum
	for i := 0; i+1 < len(pairs); i += 2 {
		a, b := pairs[i], pairs[i+1]
		var u, v int32
		if int(a) < len(byNum) && byNum[a] > 0 && int(b) < len(byNum) && byNum[b] > 0 && r.seen == nil {
			u, v = byNum[a]-1, byNum[b]-1
			r.edges = append(r.edges, Edge{u, v, 1})
			continue
		}
		line := first + i/2
		var ka, kb [10]byte
		k0, k1 := strconv.AppendUint(ka[:0], uint64(a), 10), strconv.AppendUint(kb[:0], uint64(b), 10)
		var err error
		if u, err = r.idOf(k0, int64(a)); err != nil {
			return &CSVError{Line: line, Err: err}
		}
		if v, err = r.idOf(k1, int64(b)); err != nil {
			return &CSVError{Line: line, Err: err}
		}
		if err := r.addEdge(u, v, 1, k0, k1, line); err != nil {
			return err
		}
		byNum = r.byNum
	}
	return nil
}

// pieceBounds cuts block (whole lines) into at most pieces runs of whole
// lines of about equal length: bounds[p]..bounds[p+1] is piece p.
func pieceBounds(block []byte, pieces int) []int {
	bounds := []int{0}
	for p := 1; p < pieces; p++ {
		at := max(p*len(block)/pieces, bounds[len(bounds)-1])
		nl := bytes.IndexByte(block[at:], '\n')
		if nl < 0 {
			break
		}
		if end := at + nl + 1; end < len(block) && end > bounds[len(bounds)-1] {
			bounds = append(bounds, end)
		}
	}
	return append(bounds, len(block))
}

// parse splits piece (whole lines) into fast rows and other rows.
func (bp *blockParser) parse(piece []byte) {
	bp.piece, bp.pairs, bp.rows, bp.lines = piece, bp.pairs[:0], bp.rows[:0], 0
	for rest := piece; len(rest) > 0; {
		end := bytes.IndexByte(rest, '\n')
		line := rest[:end]
		rest = rest[end+1:]
		if a, b, ok := decimalPair(line); ok {
			bp.pairs = append(bp.pairs, a, b)
			bp.lines++
			continue
		}
		var e edgeRow
		var skip bool
		bp.fields, skip = csvin.SplitLine(line, bp.fields[:0])
		if skip {
			e = edgeRow{skip: true}
		} else {
			e = plainEdge(piece, bp.fields, line)
		}
		e.line, e.before = bp.lines, len(bp.pairs)/2
		bp.rows = append(bp.rows, e)
		bp.lines++
	}
}

// decimalPair reads the commonest line, "u,v" with two different canonical
// decimal keys below maxNumKey (and perhaps a '\r'), in one pass; ok is
// false for any other line, which SplitLine and plainEdge then read.
func decimalPair(line []byte) (a, b uint32, ok bool) {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	i, x := 0, uint64(0)
	for ; i < len(line) && line[i]-'0' <= 9; i++ {
		x = 10*x + uint64(line[i]-'0')
	}
	la := i
	if la == 0 || la > 10 || (line[0] == '0' && la > 1) || i == len(line) || line[i] != ',' {
		return 0, 0, false
	}
	j, y := i+1, uint64(0)
	for ; j < len(line) && line[j]-'0' <= 9; j++ {
		y = 10*y + uint64(line[j]-'0')
	}
	lb := j - i - 1
	if j != len(line) || lb == 0 || lb > 10 || (line[i+1] == '0' && lb > 1) || x == y || x >= maxNumKey || y >= maxNumKey {
		return 0, 0, false
	}
	return uint32(x), uint32(y), true
}

// plainEdge parses the fields of a row; a row edge would refuse, or whose
// weight is not a plain positive number, is marked slow.
func plainEdge(piece []byte, f [][]byte, line []byte) edgeRow {
	slow := edgeRow{k0: spanOf(piece, line), slow: true}
	if (len(f) != 2 && len(f) != 3) || len(f[0]) == 0 || len(f[1]) == 0 || bytes.Equal(f[0], f[1]) {
		return slow
	}
	w := 1.0
	if len(f) == 3 && !(len(f[2]) == 1 && f[2][0] == '1') {
		var err error
		if w, err = strconv.ParseFloat(string(f[2]), 64); err != nil || !(w > 0) || math.IsInf(w, 0) {
			return slow
		}
	}
	return edgeRow{k0: spanOf(piece, f[0]), k1: spanOf(piece, f[1]), a: decimalOr(f[0]), b: decimalOr(f[1]), w: w}
}

// decimalOr is decimal's value, or −1 when k is not a canonical decimal.
func decimalOr(k []byte) int64 {
	if v, ok := decimal(k); ok {
		return v
	}
	return -1
}

// row adds the edge of one parsed row of piece (line is its number).
func (r *edgeReader) row(piece []byte, e *edgeRow, line int) error {
	if e.slow {
		f, _ := csvin.SplitLine(e.k0.of(piece), r.fields[:0])
		r.fields = f
		return r.edge(f, line)
	}
	k0, k1 := e.k0.of(piece), e.k1.of(piece)
	u, err := r.sourceID(k0, e.a)
	if err != nil {
		return &CSVError{Line: line, Err: err}
	}
	v, err := r.idOf(k1, e.b)
	if err != nil {
		return &CSVError{Line: line, Err: err}
	}
	return r.addEdge(u, v, e.w, k0, k1, line)
}

// sourceID is idOf for a row's first key, a repeat of the last row's
// non-decimal one answered without the map (edgeReader.lastK0).
func (r *edgeReader) sourceID(k []byte, v int64) (int32, error) {
	if v < 0 && r.lastK0 != nil && bytes.Equal(k, r.lastK0) {
		return r.lastU, nil
	}
	u, err := r.idOf(k, v)
	if err == nil && v < 0 {
		r.lastK0, r.lastU = append(r.lastK0[:0], k...), u
	}
	return u, err
}

// reserve sizes the edge slice once, at the first block, for the whole
// input when its size is known (sizeHint bytes): the rows per byte of the
// first block, plus a tenth. Growing by appending instead copied the
// slice about log₂|E| times (a tenth of the reading time).
func (r *edgeReader) reserve(blockBytes int, parsers []*blockParser) {
	if r.sizeHint <= 0 || cap(r.edges) > 0 {
		return
	}
	rows := 0
	for _, bp := range parsers {
		rows += len(bp.pairs)/2 + len(bp.rows)
	}
	want := int64(float64(rows)/float64(blockBytes)*float64(r.sizeHint)*1.1) + 16
	r.edges = make([]Edge, 0, want)
}
