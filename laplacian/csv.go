package laplacian

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// CSVError reports a problem on one line of a CSV edge list (1-based line
// number; 0 when the problem concerns the whole file).
type CSVError struct {
	Path string // the file, when read by LoadCSV
	Line int
	Err  error
}

func (e *CSVError) Error() string {
	where := "csv"
	if e.Path != "" {
		where = fmt.Sprintf("csv %q", e.Path)
	}
	msg := strings.TrimPrefix(e.Err.Error(), "laplacian: ")
	if e.Line <= 0 {
		return fmt.Sprintf("laplacian: %s: %s", where, msg)
	}
	return fmt.Sprintf("laplacian: %s line %d: %s", where, e.Line, msg)
}
func (e *CSVError) Unwrap() error { return e.Err }

// ErrCSVFields is wrapped by a CSVError for a row without 2 or 3 fields.
var ErrCSVFields = errors.New("laplacian: csv: want source,target[,weight]")

// ReadCSV reads an undirected edge list, one edge per row:
//
//	source,target[,weight]
//
// Keys are arbitrary strings (surrounding spaces trimmed; RFC 4180 quoting
// for keys containing commas); nodes are numbered in order of first
// appearance. The weight defaults to 1 when the third field is absent.
// Blank lines (or lines of spaces) and lines starting with '#' are skipped; a UTF-8 byte-order
// mark is ignored.
//
// Header: the first row is a header, and is skipped, when its first two
// fields are literally "source" and "target" (any case), or when it has
// three fields and the third is not a number ("from,to,weight"). A
// two-column header with other names cannot be told apart from an edge
// between two nodes with those keys, and is read as an edge.
//
// Every row is validated as it is read (self-loops, weights that are zero,
// negative, NaN or infinite); errors are *CSVError values carrying the line
// number and wrapping an *EdgeError that names the keys (errors.Is works
// with the sentinel errors). Duplicate edges follow opt (merged by summing
// weights, or rejected with the line of the repeat). A file without edges
// is ErrEmptyGraph.
func ReadCSV(r io.Reader, opt Options) (*Graph, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true

	var keys []string
	index := make(map[string]int32)
	var edges []Edge
	var seen map[[2]int32]int // first line of each pair, for RejectDuplicates
	if opt.RejectDuplicates {
		seen = make(map[[2]int32]int)
	}
	id := func(k string) (int32, error) {
		if i, ok := index[k]; ok {
			return i, nil
		}
		if len(keys) >= math.MaxInt32 {
			return 0, fmt.Errorf("laplacian: csv: more than %d nodes", math.MaxInt32)
		}
		i := int32(len(keys))
		keys = append(keys, k)
		index[k] = i
		return i, nil
	}
	first := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &CSVError{Line: pe.Line, Err: pe.Err}
			}
			return nil, &CSVError{Err: err}
		}
		line, _ := cr.FieldPos(0)
		blank := true
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
			blank = blank && rec[i] == ""
		}
		if blank && len(rec) == 1 { // a line of spaces
			continue
		}
		if first {
			first = false
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
			if isHeader(rec) {
				continue
			}
		}
		if len(rec) != 2 && len(rec) != 3 {
			return nil, &CSVError{Line: line, Err: fmt.Errorf("%w: got %d fields", ErrCSVFields, len(rec))}
		}
		if rec[0] == "" || rec[1] == "" {
			return nil, &CSVError{Line: line, Err: fmt.Errorf("%w: empty node key", ErrCSVFields)}
		}
		w := 1.0
		if len(rec) == 3 {
			w, err = strconv.ParseFloat(rec[2], 64)
			if err != nil {
				return nil, &CSVError{Line: line, Err: &EdgeError{rec[0], rec[1], math.NaN(), fmt.Errorf("%w: %q is not a number", ErrBadWeight, rec[2])}}
			}
		}
		switch {
		case rec[0] == rec[1]:
			return nil, &CSVError{Line: line, Err: &EdgeError{rec[0], rec[1], w, ErrSelfLoop}}
		case !(w > 0) || math.IsInf(w, 0):
			return nil, &CSVError{Line: line, Err: &EdgeError{rec[0], rec[1], w, ErrBadWeight}}
		}
		u, err := id(rec[0])
		if err != nil {
			return nil, &CSVError{Line: line, Err: err}
		}
		v, err := id(rec[1])
		if err != nil {
			return nil, &CSVError{Line: line, Err: err}
		}
		if seen != nil {
			pair := [2]int32{min(u, v), max(u, v)}
			if l, dup := seen[pair]; dup {
				return nil, &CSVError{Line: line, Err: &EdgeError{rec[0], rec[1], w,
					fmt.Errorf("%w (first on line %d)", ErrDuplicateEdge, l)}}
			}
			seen[pair] = line
		}
		edges = append(edges, Edge{u, v, w})
	}
	if len(edges) == 0 {
		return nil, &CSVError{Err: fmt.Errorf("no edges: %w", ErrEmptyGraph)}
	}
	g, err := fromEdges(0, keys, index, edges, opt)
	if err != nil {
		return nil, &CSVError{Err: err}
	}
	return g, nil
}

// isHeader reports whether the first row of a CSV edge list is a header.
func isHeader(rec []string) bool {
	if len(rec) >= 2 && strings.EqualFold(rec[0], "source") && strings.EqualFold(rec[1], "target") {
		return true
	}
	if len(rec) == 3 {
		if _, err := strconv.ParseFloat(rec[2], 64); err != nil {
			return true
		}
	}
	return false
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
			return nil, err
		}
		return nil, fmt.Errorf("laplacian: csv %q: %w", path, err)
	}
	return g, nil
}
