package local

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/sensor"
)

// DefaultMaxLine is the longest report line a collector reads (a report
// is about 300 bytes).
const DefaultMaxLine = 4096

// CollectorOptions configure OpenCollector.
type CollectorOptions struct {
	// Order is the epoch's order, already verified against the
	// coordinator's key (VerifyOrder).
	Order Order
	// OrderSHA256 is the hex SHA-256 of Order's signed bytes
	// (sensor.OrderSHA256 of its envelope): a report names the order it
	// answers by this digest, under its MAC, and one naming another order
	// is refused (other-order).
	OrderSHA256 string
	// MACKeys are the report-MAC keys K_mac by node key. A node of the
	// order without a key can never report (unknown-node).
	MACKeys map[string][]byte
	// JournalDir holds the epoch's journal <releaseId>.journal and its
	// lock; it must exist.
	JournalDir string
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// MaxLine is the longest report line read; 0: DefaultMaxLine.
	MaxLine int
}

// Collector verifies and stores the reports of one epoch. It is safe for
// concurrent use; Submit returns only after the accepted reports are
// durable.
type Collector struct {
	order    Order
	orderSHA string // the digest of the order's signed bytes
	hdr      journalHeader
	expected map[string]int // node → index in order.Nodes
	macKeys  map[string][]byte
	now      func() time.Time
	maxLine  int

	mu       sync.Mutex
	stored   map[string]stored
	closed   bool
	closedAt time.Time
	broken   error
	stats    Stats

	j *journal
	// waitDurable, when set (tests), is called when a Submit holding
	// duplicates starts waiting for their first copies to be durable.
	waitDurable func()
}

type stored struct {
	grid int64
	mac  string
	// at is the journal offset the report is durable at (0: restored from
	// the journal, durable already). A duplicate is acknowledged only once
	// the journal is synced past it.
	at uint64
}

// Result is the outcome of one report line.
type Result struct {
	// Line is the line's number in its batch or file (from 1).
	Line int `json:"line"`
	// Node is the node the report names ("" when unreadable).
	Node string `json:"node,omitempty"`
	// Result is "accepted" or "refused"; Reason says why a report was
	// refused, Error in a sentence.
	Result string `json:"result"`
	Reason Reason `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Stats count the reports a collector has seen since it was opened.
type Stats struct {
	Received int64            `json:"received"`
	Accepted int64            `json:"accepted"`
	Refused  map[Reason]int64 `json:"refused"`
	// Fsyncs is the number of journal fsyncs (group commits).
	Fsyncs uint64 `json:"fsyncs"`
}

// Progress is the epoch's arrival progress.
type Progress struct {
	ReleaseID string    `json:"releaseId"`
	Scope     string    `json:"scope"`
	Epoch     string    `json:"epoch"`
	Expected  int       `json:"expected"`
	Reported  int       `json:"reported"`
	NotBefore time.Time `json:"notBefore"`
	NotAfter  time.Time `json:"notAfter"`
	Closed    bool      `json:"closed"`
}

// OrderDigest is the SHA-256 (hex) of the order's canonical JSON: the
// journal is bound to it.
func OrderDigest(o Order) string {
	b, _ := json.Marshal(o)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// OpenCollector locks and opens the epoch's journal (creating it) and
// restores the reports stored in it, each verified again; a journal of
// another order, or holding a report that no longer verifies, is refused
// (*JournalError), one held by another collector is busy
// (*JournalBusyError).
func OpenCollector(opt CollectorOptions) (*Collector, error) {
	o := opt.Order
	if o.ReleaseID == "" || o.Scope == "" || o.Epoch == "" || len(o.Nodes) == 0 {
		return nil, errkind.Inputf("local: the order has no release id, scope, epoch or nodes")
	}
	if d, err := hex.DecodeString(opt.OrderSHA256); err != nil || len(d) != sha256.Size || hex.EncodeToString(d) != opt.OrderSHA256 {
		return nil, errkind.Inputf("local: the collector needs the order's digest (64 lowercase hex digits), not %q", opt.OrderSHA256)
	}
	c := &Collector{order: o, orderSHA: opt.OrderSHA256, expected: make(map[string]int, len(o.Nodes)), macKeys: opt.MACKeys, now: opt.Now,
		maxLine: opt.MaxLine, stored: make(map[string]stored, len(o.Nodes)), stats: Stats{Refused: map[Reason]int64{}}}
	if c.now == nil {
		c.now = time.Now
	}
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLine
	}
	for i, n := range o.Nodes {
		if _, dup := c.expected[n]; dup {
			return nil, errkind.Inputf("local: the order lists node %q twice", n)
		}
		c.expected[n] = i
	}
	c.hdr = journalHeader{Kind: journalKind, Version: journalVersion, ReleaseID: o.ReleaseID, Scope: o.Scope, Epoch: o.Epoch, Order: OrderDigest(o)}
	j, lines, err := openJournal(opt.JournalDir, c.hdr)
	if err != nil {
		return nil, err
	}
	c.j = j
	for i, line := range lines {
		if err := c.restore(line); err != nil {
			j.close()
			return nil, &JournalError{Path: j.path, Reason: fmt.Sprintf("line %d: %v", i+2, err)}
		}
	}
	return c, nil
}

// restore replays one journal line after the header.
func (c *Collector) restore(line []byte) error {
	var cl journalClose
	if strictUnmarshal(line, &cl) == nil && cl.Kind == journalCloseKind {
		c.closed, c.closedAt = true, cl.ClosedAt
		return nil
	}
	if c.closed {
		return errors.New("a report after the epoch was closed")
	}
	rep, reason, err := c.parse(line)
	if err == nil {
		reason, err = c.authenticate(rep)
	}
	if reason == OldVersion {
		return errors.New("old-version: a version 1 report, stored by a collector before version 2 (whose reports name their order); " +
			"close this epoch with the graphcloak that opened it, or open a new epoch")
	}
	if err != nil {
		return fmt.Errorf("%s: %v", reason, err)
	}
	if _, dup := c.stored[rep.Node]; dup {
		return fmt.Errorf("node %q stored twice", rep.Node)
	}
	c.stored[rep.Node] = stored{grid: rep.Grid, mac: rep.MAC}
	return nil
}

// Close releases the journal's lock and file; the collector stores
// nothing more. It does not close the epoch (CloseEpoch does).
func (c *Collector) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken == nil {
		c.broken = errors.New("local: collector closed")
	}
	c.j.close()
}

// Order returns the epoch's order.
func (c *Collector) Order() Order { return c.order }

// Submit verifies each line and stores the accepted reports; it returns
// once they are durable (fsynced), with one Result per line, numbered
// from first. A duplicate of a report accepted by a batch still being
// synced is acknowledged only once that first copy is durable (and is
// unavailable if its sync fails).
func (c *Collector) Submit(lines [][]byte, first int) []Result {
	res := make([]Result, len(lines))
	var buf []byte
	var accepted, dups []int
	var dupAt uint64 // the offset the duplicates' first copies are durable at
	c.mu.Lock()
	now := c.now()
	for i, line := range lines {
		var rep Report
		res[i], rep = c.check(line, now)
		res[i].Line = first + i
		switch res[i].Reason {
		case Accepted:
			accepted = append(accepted, i)
			buf = append(buf, canonicalLine(rep)...)
			buf = append(buf, '\n')
		case Duplicate:
			dups = append(dups, i)
			dupAt = max(dupAt, c.stored[res[i].Node].at)
		}
	}
	var upto uint64
	var err error
	if len(buf) > 0 {
		if upto, err = c.j.append(buf); err != nil {
			c.broken = fmt.Errorf("local: journal %s: %w", c.j.path, err)
		}
		for _, i := range accepted {
			st := c.stored[res[i].Node]
			st.at = upto
			c.stored[res[i].Node] = st
		}
	}
	c.mu.Unlock()
	if err == nil && (len(buf) > 0 || dupAt > 0) {
		if len(dups) > 0 && c.waitDurable != nil {
			c.waitDurable()
		}
		if err = c.j.sync(max(upto, dupAt)); err != nil {
			c.mu.Lock()
			c.broken = fmt.Errorf("local: journal %s: %w", c.j.path, err)
			c.mu.Unlock()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil && c.broken != nil && (len(buf) > 0 || dupAt > 0) {
		// Another batch's fsync failed meanwhile: a later fsync may report
		// success for pages the failed one lost, so nothing is acknowledged.
		err = c.broken
	}
	if err != nil { // not durable: not acknowledged
		for _, i := range append(accepted, dups...) {
			res[i].Result, res[i].Reason, res[i].Error = "refused", Unavailable, "the journal failed: the report may or may not be stored; send it again to a restarted collector"
		}
	}
	c.stats.Received += int64(len(lines))
	for _, r := range res {
		if r.Reason == Accepted {
			c.stats.Accepted++
		} else {
			c.stats.Refused[r.Reason]++
		}
	}
	return res
}

// SubmitReader reads JSON Lines from r and submits them in batches of
// batch lines (0: 1024); it calls each with the results of every batch,
// numbered by their line in r (blank lines skipped but counted).
func (c *Collector) SubmitReader(r io.Reader, batch int, each func([]Result) error) error {
	if batch <= 0 {
		batch = 1024
	}
	var lines [][]byte
	var nums, tooLong []int
	flush := func() error {
		if len(lines) == 0 {
			return nil
		}
		res := c.Submit(lines, 1)
		for i := range res {
			res[i].Line = nums[i] // the line's number in r, blank lines counted
		}
		for _, i := range tooLong {
			res[i].Reason, res[i].Result, res[i].Error = Oversized, "refused", fmt.Sprintf("the line is longer than %d bytes", c.maxLine)
		}
		lines, nums, tooLong = lines[:0], nums[:0], tooLong[:0]
		return each(res)
	}
	err := readLines(r, c.maxLine, func(n int, line []byte, long bool) error {
		if long {
			tooLong = append(tooLong, len(lines))
			line = nil
		}
		nums = append(nums, n)
		lines = append(lines, append([]byte(nil), line...))
		if len(lines) == batch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// check verifies one line and, when it is accepted, records its node as
// stored (the caller holds c.mu and appends the line to the journal).
func (c *Collector) check(line []byte, now time.Time) (Result, Report) {
	refuse := func(node string, r Reason, format string, a ...any) (Result, Report) {
		return Result{Node: node, Result: "refused", Reason: r, Error: fmt.Sprintf(format, a...)}, Report{}
	}
	if c.broken != nil {
		return refuse("", Unavailable, "%v", c.broken)
	}
	if line == nil {
		return refuse("", Oversized, "the line is longer than %d bytes", c.maxLine)
	}
	if len(line) > c.maxLine {
		return refuse("", Oversized, "the line is longer than %d bytes", c.maxLine)
	}
	rep, reason, err := c.parse(line)
	if err != nil {
		return refuse(rep.Node, reason, "%v", err)
	}
	if reason, err := c.authenticate(rep); err != nil {
		return refuse(rep.Node, reason, "%v", err)
	}
	// A report stored already is a duplicate even once the epoch is
	// closed: collecting the same batch again (a retry) is idempotent.
	prev, seen := c.stored[rep.Node]
	if seen && prev.grid == rep.Grid && prev.mac == rep.MAC {
		return refuse(rep.Node, Duplicate, "node %q has reported this value already: it is stored", rep.Node)
	}
	if c.closed {
		return refuse(rep.Node, Closed, "epoch %q was closed at %s", c.order.Epoch, c.closedAt.Format(time.RFC3339))
	}
	if seen {
		return refuse(rep.Node, SecondValue, "node %q has reported another value for epoch %q: one value per node and epoch", rep.Node, c.order.Epoch)
	}
	if now.Before(c.order.NotBefore) {
		return refuse(rep.Node, Early, "epoch %q opens at %s", c.order.Epoch, c.order.NotBefore.UTC().Format(time.RFC3339))
	}
	if !now.Before(c.order.NotAfter) {
		return refuse(rep.Node, Late, "epoch %q ended at %s", c.order.Epoch, c.order.NotAfter.UTC().Format(time.RFC3339))
	}
	c.stored[rep.Node] = stored{grid: rep.Grid, mac: rep.MAC}
	return Result{Node: rep.Node, Result: "accepted"}, rep
}

// parse reads a report strictly and checks it is one of this epoch's.
func (c *Collector) parse(line []byte) (Report, Reason, error) {
	var rep Report
	if err := strictUnmarshal(line, &rep); err != nil {
		var probe struct {
			Kind    *string `json:"kind"`
			Version *int    `json:"version"`
		}
		if t := bytes.TrimSpace(line); json.Valid(t) && t[0] != '{' {
			return Report{}, NotAReport, errors.New("a JSON value that is not an object, not a report")
		}
		if json.Unmarshal(line, &probe) == nil && (probe.Kind == nil || *probe.Kind != ReportKind) {
			return Report{}, NotAReport, errors.New("a JSON object that is not a report (kind \"graphcloak.report\")")
		}
		return Report{}, Malformed, fmt.Errorf("not a well-formed report: %v", err)
	}
	if rep.Kind == ReportKind && rep.Version == 1 {
		return rep, OldVersion, errors.New("a version 1 report: its MAC does not cover the order it answers, so it could be a report " +
			"of another order (one split to fewer nodes); this collector accepts version 2 only: upgrade the sensor and send it the order again")
	}
	if rep.Kind != ReportKind || rep.Version != sensor.ReportVersion {
		return rep, NotAReport, fmt.Errorf("kind %q version %d is not a report (kind %q version %d)", rep.Kind, rep.Version, ReportKind, sensor.ReportVersion)
	}
	o := &c.order
	if rep.ReleaseID != o.ReleaseID || rep.Scope != o.Scope || rep.Epoch != o.Epoch {
		return rep, OtherEpoch, fmt.Errorf("a report for release %q (scope %q, epoch %q), not this epoch's release %q (scope %q, epoch %q)",
			rep.ReleaseID, rep.Scope, rep.Epoch, o.ReleaseID, o.Scope, o.Epoch)
	}
	if rep.OrderSHA256 != c.orderSHA {
		return rep, OtherOrder, fmt.Errorf("a report of release %q made for another order (orderSha256 %q), not the order this collector holds (%s): "+
			"the sensor was given an order other than the epoch's — one split to fewer nodes, or changed and re-signed — and is not counted",
			rep.ReleaseID, rep.OrderSHA256, c.orderSHA)
	}
	if rep.Value != math.Ldexp(float64(rep.Grid), -o.Sampler.GridExponent) {
		return rep, Malformed, fmt.Errorf("value %v is not grid·2^-%d", rep.Value, o.Sampler.GridExponent)
	}
	return rep, Accepted, nil
}

// authenticate checks the node and the MAC.
func (c *Collector) authenticate(rep Report) (Reason, error) {
	if _, ok := c.expected[rep.Node]; !ok {
		return UnknownNode, fmt.Errorf("node %q is not in the order's node list", rep.Node)
	}
	key, ok := c.macKeys[rep.Node]
	if !ok {
		return UnknownNode, fmt.Errorf("node %q has no report-MAC key at this collector", rep.Node)
	}
	if err := rep.Verify(key, c.order.Sampler.GridExponent); err != nil {
		return BadMAC, fmt.Errorf("node %q: the MAC does not verify under its report-MAC key", rep.Node)
	}
	return Accepted, nil
}

// Stats returns the counts since the collector was opened.
func (c *Collector) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Refused = make(map[Reason]int64, len(c.stats.Refused))
	for k, v := range c.stats.Refused {
		s.Refused[k] = v
	}
	s.Fsyncs = c.j.fsyncs.Load()
	return s
}

// Progress returns the epoch's arrival progress.
func (c *Collector) Progress() Progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := &c.order
	return Progress{ReleaseID: o.ReleaseID, Scope: o.Scope, Epoch: o.Epoch, Expected: len(o.Nodes), Reported: len(c.stored),
		NotBefore: o.NotBefore, NotAfter: o.NotAfter, Closed: c.closed}
}

// canonicalLine is a report line as the journal keeps it.
func canonicalLine(rep Report) []byte {
	b, _ := json.Marshal(rep)
	return bytes.TrimSpace(b)
}
