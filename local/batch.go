package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// What a report batch may cost the collector: its body no longer than
// one report per expected node can make (BatchLimit), read line by line,
// and read no further than its first line that is not a report.

// reportSlack is what a report line may hold beyond its fields' longest
// encodings: whitespace between tokens, a "\r\n".
const reportSlack = 64

// BatchLimit is the longest body a batch of this collector's reports can
// legitimately have: one report line per expected node, every string
// field escaped six-fold (\u00XX), the widest grid and value, plus 4 KiB
// of blank lines.
func (c *Collector) BatchLimit() int64 {
	o := &c.order
	empty, _ := json.Marshal(Report{Kind: ReportKind, Version: 1})
	perLine := len(empty) + 6*(len(o.Scope)+len(o.Epoch)+len(o.ReleaseID)) +
		len("-9223372036854775808") + len("-1.2345678901234567e-308") + 64 + reportSlack
	total := int64(4096)
	for _, n := range o.Nodes {
		total += int64(min(perLine+6*len(n), c.maxLine+2))
	}
	return total
}

// errNotAReport stops reading a batch at a line that is not a report.
var errNotAReport = errors.New("local: not a report")

// batchReader reads a batch's lines, refusing the first that is not a
// report's JSON (the rest of the body is not read), and vouches for the
// request's connection once a line's MAC verifies (Vouch).
type batchReader struct {
	c       *Collector
	ctx     context.Context
	vouched bool
	lines   [][]byte
	stop    *Result // the line reading stopped at
}

func (b *batchReader) line(n int, line []byte, tooLong bool) error {
	stop := func(r Reason, format string, a ...any) error {
		b.stop = &Result{Line: len(b.lines) + 1, Result: "refused", Reason: r,
			Error: fmt.Sprintf(format, a...) + fmt.Sprintf("; the batch's lines after line %d were not read", n)}
		return errNotAReport
	}
	if tooLong {
		return stop(Oversized, "the line is longer than %d bytes", b.c.maxLine)
	}
	rep, reason, err := b.c.parse(line)
	if reason == Malformed || reason == NotAReport {
		return stop(reason, "%v", err)
	}
	if !b.vouched && err == nil {
		if _, err := b.c.authenticate(rep); err == nil {
			Vouch(b.ctx)
			b.vouched = true
		}
	}
	b.lines = append(b.lines, append([]byte(nil), line...))
	return nil
}

// read reads r's lines; the results are the lines submitted (Submit) and
// the line reading stopped at, if any.
func (b *batchReader) read(r io.Reader) ([]Result, error) {
	err := readLines(r, b.c.maxLine, b.line)
	if err != nil && !errors.Is(err, errNotAReport) {
		return nil, err
	}
	var res []Result
	if len(b.lines) > 0 {
		res = b.c.Submit(b.lines, 1)
	}
	if b.stop != nil {
		res = append(res, *b.stop)
	}
	return res, nil
}
