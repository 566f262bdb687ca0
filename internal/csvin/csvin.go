// Package csvin is the one reader of every CSV file graphcloak takes as
// input: edge lists, readings and community assignments. The rules are the
// same for all of them and are documented in docs/input-files.md:
//
//   - A UTF-8 byte-order mark at the start of the file is ignored.
//   - A line whose first character is '#' is a comment; blank lines (only
//     spaces and tabs) are skipped. Nothing else is a comment.
//   - Fields are separated by commas and may be quoted as in RFC 4180
//     ("a,b" and "say ""hi"""); a quoted field may span lines.
//   - Unquoted fields have surrounding spaces and tabs trimmed; quoted
//     fields are taken verbatim, so a key that starts with '#' or a space
//     is written quoted: "#7" or " a".
//   - Line ends may be LF or CRLF.
//
// Whether the first row is a header is decided by the caller from the
// names in it (see Header); an explicit --header yes|no overrides that.
package csvin

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
)

// Record is one row: its fields and the line it starts on (1-based).
type Record struct {
	Fields []string
	Line   int
}

// Error reports a malformed row. It never quotes the file's contents.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Reader reads records by the rules in the package comment.
type Reader struct {
	r      *bufio.Reader
	line   int // lines consumed so far
	start  bool
	fields [][]byte // ReadBytes's result, reused
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader { return newReaderSize(r, bufferSize) }

func newReaderSize(r io.Reader, size int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, size), start: true}
}

// bufferSize is large so that ReadBytes finds most lines whole in the
// buffer.
const bufferSize = 1 << 20

// Read returns the next record, or io.EOF after the last one.
func (r *Reader) Read() (Record, error) {
	if r.start {
		r.start = false
		if b, err := r.r.Peek(3); err == nil && string(b) == "\ufeff" {
			_, _ = r.r.Discard(3)
		}
	}
	for {
		rec, skip, err := r.readRecord()
		if err != nil || !skip {
			return rec, err
		}
	}
}

// ReadBytes is Read without allocating: it returns the next record's
// fields as slices that stay valid only until the next call. A line that
// lies whole in the read buffer and holds no quote is split in place;
// any other line (quoted fields, a line longer than the buffer, the last
// line without a newline) goes through Read, so the rules are the same.
func (r *Reader) ReadBytes() (fields [][]byte, line int, err error) {
	if r.start {
		rec, err := r.Read()
		return r.asBytes(rec), rec.Line, err
	}
	for {
		if r.r.Buffered() == 0 {
			if _, err := r.r.Peek(1); err != nil {
				return nil, 0, err
			}
		}
		buf, _ := r.r.Peek(r.r.Buffered())
		end := bytes.IndexByte(buf, '\n')
		if end < 0 || bytes.IndexByte(buf[:end], '"') >= 0 {
			rec, err := r.Read()
			return r.asBytes(rec), rec.Line, err
		}
		lineBytes := buf[:end]
		_, _ = r.r.Discard(end + 1)
		r.line++
		var skip bool
		if r.fields, skip = SplitLine(lineBytes, r.fields[:0]); skip {
			continue
		}
		return r.fields, r.line, nil
	}
}

// SplitLine splits one line that holds no quote (without its '\n') into
// fields by the rules of the package comment, appending them to fields,
// and reports skip for a comment or blank line. It is the unquoted-line
// path of ReadBytes, shared with readers that parse blocks of lines from
// ReadLines.
func SplitLine(line []byte, fields [][]byte) (out [][]byte, skip bool) {
	if len(line) > 0 && line[0] == '#' {
		return fields, true
	}
	for {
		comma := bytes.IndexByte(line, ',')
		if comma < 0 {
			fields = append(fields, trimBlanks(line))
			break
		}
		fields = append(fields, trimBlanks(line[:comma]))
		line = line[comma+1:]
	}
	return fields, len(fields) == 1 && len(fields[0]) == 0
}

// trimBlanks is bytes.Trim(b, " \t\r") without building the cut set on
// every call (it was a tenth of the edge-list reading time).
func trimBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 {
		c := b[len(b)-1]
		if c != ' ' && c != '\t' && c != '\r' {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

// ReadLines returns the longest run of whole lines that lies in the read
// buffer from the current position and holds no quote, with the number
// of its first line, and consumes it; the block stays valid until the
// next call of any read method. Each line of the block is read by
// SplitLine exactly as ReadBytes would read it; a block lets a caller
// parse many lines at once (in parallel). It returns a nil block when the
// next line is not such a line (quoted, not yet whole in the buffer, or
// the first record, which may start with a byte-order mark): read it with
// ReadBytes. At the end of the input it returns io.EOF.
func (r *Reader) ReadLines() (block []byte, first int, err error) {
	if r.start {
		return nil, 0, nil
	}
	if r.r.Buffered() == 0 {
		if _, err := r.r.Peek(1); err != nil {
			return nil, 0, err
		}
	}
	buf, _ := r.r.Peek(r.r.Buffered())
	end := bytes.LastIndexByte(buf, '\n') + 1
	if q := bytes.IndexByte(buf[:end], '"'); q >= 0 {
		end = bytes.LastIndexByte(buf[:q], '\n') + 1
	}
	if end == 0 {
		return nil, 0, nil
	}
	block, first = buf[:end], r.line+1
	r.line += bytes.Count(block, []byte{'\n'})
	_, _ = r.r.Discard(end)
	return block, first, nil
}

// asBytes returns rec's fields as byte slices (the slow path of ReadBytes).
func (r *Reader) asBytes(rec Record) [][]byte {
	r.fields = r.fields[:0]
	for _, f := range rec.Fields {
		r.fields = append(r.fields, []byte(f))
	}
	return r.fields
}

// readRecord reads one line (or more, for quoted line breaks). skip is true
// for comments and blank lines.
func (r *Reader) readRecord() (rec Record, skip bool, err error) {
	c, err := r.r.ReadByte()
	if err == io.EOF {
		return Record{}, false, io.EOF
	}
	if err != nil {
		return Record{}, false, err
	}
	r.line++
	rec.Line = r.line
	if c == '#' {
		_, err := r.r.ReadString('\n')
		if err != nil && err != io.EOF {
			return Record{}, false, err
		}
		return Record{}, true, nil
	}
	_ = r.r.UnreadByte()
	quotedAny := false
	for {
		field, quoted, end, err := r.readField()
		if err != nil {
			return Record{}, false, err
		}
		quotedAny = quotedAny || quoted
		rec.Fields = append(rec.Fields, field)
		if end {
			break
		}
	}
	if len(rec.Fields) == 1 && rec.Fields[0] == "" && !quotedAny {
		return Record{}, true, nil
	}
	return rec, false, nil
}

// readField reads one field and its terminator; end is true when the
// terminator ended the record (newline or end of input).
func (r *Reader) readField() (field string, quoted, end bool, err error) {
	var b strings.Builder
	// Leading blanks.
	for {
		c, err := r.r.ReadByte()
		if err == io.EOF {
			return "", false, true, nil
		}
		if err != nil {
			return "", false, false, err
		}
		if c == ' ' || c == '\t' {
			continue
		}
		if c == '"' {
			return r.readQuoted()
		}
		_ = r.r.UnreadByte()
		break
	}
	for {
		c, err := r.r.ReadByte()
		if err == io.EOF {
			return trimField(b.String()), false, true, nil
		}
		if err != nil {
			return "", false, false, err
		}
		switch c {
		case ',':
			return trimField(b.String()), false, false, nil
		case '\n':
			return trimField(b.String()), false, true, nil
		case '"':
			return "", false, false, &Error{r.line, `a quote inside an unquoted field (quote the whole field and double the quote: "a""b")`}
		}
		b.WriteByte(c)
	}
}

func trimField(s string) string { return strings.Trim(s, " \t\r") }

// readQuoted reads a quoted field after its opening quote.
func (r *Reader) readQuoted() (string, bool, bool, error) {
	start := r.line
	var b strings.Builder
	for {
		c, err := r.r.ReadByte()
		if err == io.EOF {
			return "", true, false, &Error{start, "a quoted field is not closed"}
		}
		if err != nil {
			return "", true, false, err
		}
		if c == '\n' {
			r.line++
		}
		if c != '"' {
			b.WriteByte(c)
			continue
		}
		next, err := r.r.ReadByte()
		if err == nil && next == '"' {
			b.WriteByte('"')
			continue
		}
		if err != nil && err != io.EOF {
			return "", true, false, err
		}
		// Closing quote: only blanks may follow before the terminator.
		for err == nil && (next == ' ' || next == '\t' || next == '\r') {
			next, err = r.r.ReadByte()
		}
		switch {
		case err == io.EOF || (err == nil && next == '\n'):
			return b.String(), true, true, nil
		case err == nil && next == ',':
			return b.String(), true, false, nil
		case err != nil:
			return "", true, false, err
		}
		return "", true, false, &Error{r.line, "text after a closing quote"}
	}
}

// Header says whether a file's first row is a header.
type Header int

const (
	// HeaderAuto decides by the names in the first row (the default).
	HeaderAuto Header = iota
	// HeaderYes always skips the first row.
	HeaderYes
	// HeaderNo never skips it: the first row is data.
	HeaderNo
)

// ParamHeader is the parameter ParseHeader reads (errkind.Param).
const ParamHeader errkind.Param = "header"

// ParseHeader reads the header parameter's value: auto, yes or no.
func ParseHeader(s string) (Header, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return HeaderAuto, nil
	case "yes", "true":
		return HeaderYes, nil
	case "no", "false":
		return HeaderNo, nil
	}
	return HeaderAuto, errkind.Errorf("%s must be auto, yes or no", ParamHeader)
}

func (h Header) String() string {
	switch h {
	case HeaderYes:
		return "yes"
	case HeaderNo:
		return "no"
	}
	return "auto"
}

// IsName reports whether s is one of names, ignoring case, spaces,
// underscores and hyphens ("Node_ID" matches "nodeid").
func IsName(s string, names ...string) bool {
	norm := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-':
			return -1
		}
		return r
	}, strings.ToLower(s))
	for _, n := range names {
		if norm == n {
			return true
		}
	}
	return false
}

// Names recognised in headers, by column.
var (
	// KeyNames name a node-key column (readings, communities).
	KeyNames = []string{"node", "nodeid", "id", "key", "name", "sensor"}
	// SourceNames and TargetNames name the two ends of an edge.
	SourceNames = []string{"source", "src", "from", "u", "node1", "start", "startnode", "sourcenode"}
	TargetNames = []string{"target", "dst", "to", "v", "node2", "end", "endnode", "targetnode"}
	// WeightNames name an edge-weight column.
	WeightNames = []string{"weight", "w", "cost"}
	// ValueNames name a readings column.
	ValueNames = []string{"value", "reading", "readings", "measurement", "y"}
	// CommunityNames name a community column.
	CommunityNames = []string{"community", "communityid", "block", "label", "cluster"}
)
