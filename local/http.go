package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// DefaultMaxBody is the largest report batch a Handler reads (4 MiB:
// about 13 000 reports).
const DefaultMaxBody = 4 << 20

// DefaultBodyTimeout is how long a Handler waits for a batch's whole body
// (from the moment its headers are read): 4 MiB at 140 KB/s. A body still
// arriving then is answered 408 and its connection closed; nothing of it
// is stored.
const DefaultBodyTimeout = 30 * time.Second

// MinAnswerBudget is the size an answer may always reach, however short
// the request: a refusal names its reason.
const MinAnswerBudget = 512

// Handler serves a collector over HTTP:
//
//	GET  /epoch/order     the signed epoch order (the order file's bytes)
//	POST /epoch/reports   a batch of reports, JSON Lines; per-report results
//	GET  /epoch/progress  the epoch's arrival progress (Progress, JSON)
//	GET  /epoch/          a plain HTML page of the progress
//
// Reports are authenticated by their MACs alone. POST /epoch/reports reads
// the body line by line (at most BatchLimit or MaxBody bytes, the smaller:
// larger is 413 and nothing is stored, refused before it is read when its
// Content-Length says so; a body not read within BodyTimeout is 408 and
// nothing is stored). It stops at the first line that is not a report
// (malformed, not-a-report, oversized: that line is refused and the rest
// of the body is not read), vouches for its connection (Vouch) once a
// report's MAC verifies, then submits the lines read and answers, once the accepted ones are
// durable, with BatchResult. An answer is never longer than its request
// (or MinAnswerBudget bytes, whichever is larger): the per-report results
// past that are left out (Omitted counts them; Refusals counts every
// refusal by reason), so that the collector cannot be made an amplifier. The status is the first of these that
// applies to a report of the batch, 200 when none does (every report
// stored, now or before):
//
//	503  unavailable   the journal failed; nothing more is stored
//	400  malformed, oversized   a line that is not a report's JSON
//	422  not-a-report, old-version, other-epoch, other-order, unknown-node, bad-mac
//	409  second-value  another value for a node that has reported
//	410  late, closed  the epoch's window has ended
//	425  early         the epoch's window has not begun
//
// An empty body is 400. Whatever the status, the accepted reports of the
// batch are stored and BatchResult says which.
type Handler struct {
	Collector *Collector
	// Order is the signed order envelope served at /epoch/order.
	Order []byte
	// MaxBody bounds a batch; 0: DefaultMaxBody.
	MaxBody int64
	// BodyTimeout bounds the time to read a batch's body; 0:
	// DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Observe, when not nil, is called with every batch's results (the
	// service's metrics).
	Observe func([]Result)
}

// BatchResult is the answer to a batch of reports.
type BatchResult struct {
	Accepted int `json:"accepted"`
	Refused  int `json:"refused"`
	// Refusals counts the refused reports by reason.
	Refusals map[Reason]int `json:"refusals,omitempty"`
	// Results are the per-report results, in order, the first len(Results)
	// of the batch; Omitted is how many more were left out to keep the
	// answer within the request's size.
	Results []Result `json:"results"`
	Omitted int      `json:"omitted,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// bound leaves out the results past those whose JSON keeps the answer
// within budget bytes.
func (b *BatchResult) bound(budget int) {
	all := b.Results
	b.Results, b.Omitted = []Result{}, len(all)
	base, _ := json.Marshal(b)
	size := len(base) + 1 // the encoder's newline
	for i, r := range all {
		enc, _ := json.Marshal(r)
		if size+len(enc)+1 > budget { // +1: the comma
			return
		}
		size += len(enc) + 1
		b.Results, b.Omitted = all[:i+1], len(all)-i-1
	}
}

// statusOrder is the precedence of refusal statuses in a batch.
var statusOrder = []struct {
	status  int
	reasons []Reason
}{
	{http.StatusServiceUnavailable, []Reason{Unavailable}},
	{http.StatusBadRequest, []Reason{Malformed, Oversized}},
	{http.StatusUnprocessableEntity, []Reason{NotAReport, OldVersion, OtherEpoch, OtherOrder, UnknownNode, BadMAC}},
	{http.StatusConflict, []Reason{SecondValue}},
	{http.StatusGone, []Reason{Late, Closed}},
	{http.StatusTooEarly, []Reason{Early}},
}

// BatchStatus is the HTTP status of a batch with these results.
func BatchStatus(res []Result) int {
	seen := map[Reason]bool{}
	for _, r := range res {
		if !r.Reason.Stored() {
			seen[r.Reason] = true
		}
	}
	for _, s := range statusOrder {
		for _, r := range s.reasons {
			if seen[r] {
				return s.status
			}
		}
	}
	return http.StatusOK
}

// Routes registers the handler's routes on mux.
func (h *Handler) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /epoch/order", h.order)
	mux.HandleFunc("POST /epoch/reports", h.reports)
	mux.HandleFunc("GET /epoch/progress", h.progress)
	mux.HandleFunc("GET /epoch/{$}", h.page)
}

func (h *Handler) order(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(h.Order) // a client gone away is not the server's error
}

func (h *Handler) progress(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, h.Collector.Progress())
}

func (h *Handler) reports(w http.ResponseWriter, r *http.Request) {
	limit := h.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	limit = min(limit, h.Collector.BatchLimit())
	timeout := h.BodyTimeout
	if timeout <= 0 {
		timeout = DefaultBodyTimeout
	}
	if r.ContentLength > limit { // refused before a byte of it is read
		w.Header().Set("Connection", "close")
		writeJSON(w, http.StatusRequestEntityTooLarge, tooLarge(limit))
		return
	}
	// Not every ResponseWriter has a connection (tests): then no deadline.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
	body := &countingReader{r: http.MaxBytesReader(w, r.Body, limit)}
	batch := &batchReader{c: h.Collector, ctx: r.Context()}
	res, err := batch.read(body)
	if batch.stop != nil { // the rest of the body is not read, not even drained
		w.Header().Set("Connection", "close")
	}
	var tooBig *http.MaxBytesError
	var timedOut net.Error
	switch {
	case errors.As(err, &timedOut) && timedOut.Timeout():
		w.Header().Set("Connection", "close")
		writeJSON(w, http.StatusRequestTimeout, BatchResult{Results: []Result{},
			Error: fmt.Sprintf("the body did not arrive within %v: nothing stored", timeout)})
		return
	case errors.As(err, &tooBig):
		writeJSON(w, http.StatusRequestEntityTooLarge, tooLarge(limit))
		return
	case err != nil:
		writeJSON(w, http.StatusBadRequest, BatchResult{Results: []Result{}, Error: "the body could not be read: nothing stored"})
		return
	case len(res) == 0:
		writeJSON(w, http.StatusBadRequest, BatchResult{Results: []Result{}, Error: "the body holds no report (JSON Lines, one report per line)"})
		return
	}
	if h.Observe != nil {
		h.Observe(res)
	}
	out := BatchResult{Results: res}
	for _, x := range res {
		if x.Reason == Accepted {
			out.Accepted++
		} else {
			out.Refused++
			if out.Refusals == nil {
				out.Refusals = map[Reason]int{}
			}
			out.Refusals[x.Reason]++
		}
	}
	out.bound(max(body.n, MinAnswerBudget))
	writeJSON(w, BatchStatus(res), out)
}

func tooLarge(limit int64) BatchResult {
	return BatchResult{Results: []Result{},
		Error: fmt.Sprintf("the batch is larger than %d bytes (one report per node of the order, or --max-body): nothing stored; send smaller batches", limit)}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

var pageTemplate = template.Must(template.New("epoch").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>graphcloak epoch {{.Epoch}}</title>
<meta http-equiv="refresh" content="10"></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
<h1>Epoch {{.Epoch}} of scope {{.Scope}}</h1>
<p>Release {{.ReleaseID}}: <strong>{{.Reported}} of {{.Expected}}</strong> sensors have reported{{if .Closed}}; the epoch is closed{{end}}.</p>
<progress max="{{.Expected}}" value="{{.Reported}}" style="width: 100%"></progress>
{{with .Missing}}<p>{{if $.Closed}}Closed with {{else}}So far: {{end}}{{.}}.</p>{{end}}
<p>Window: {{.NotBefore.Format "2006-01-02T15:04:05Z07:00"}} to {{.NotAfter.Format "2006-01-02T15:04:05Z07:00"}}.</p>
</body></html>
`))

// Page is the arrival-progress page (also served at /epoch/): a
// service's operator page.
func (h *Handler) Page() http.Handler { return http.HandlerFunc(h.page) }

func (h *Handler) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	p := h.Collector.Progress()
	page := struct {
		Progress
		Missing string // what the missing sensors do to the release (MissingNote)
	}{p, MissingNote(h.Collector.Order(), p)}
	_ = pageTemplate.Execute(w, page) // a fixed template: only the client's write can fail
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // as page: only the write can fail
}

// Current serves the routes of the current epoch's Handler, which a
// service replaces as epochs open (Set); while none is set every route
// answers 503.
type Current struct{ h atomic.Pointer[Handler] }

// Set makes h the current epoch's handler and returns the previous one
// (nil: none).
func (c *Current) Set(h *Handler) *Handler { return c.h.Swap(h) }

// Routes registers the routes of Handler on mux, each served by the
// current handler.
func (c *Current) Routes(mux *http.ServeMux) {
	with := func(f func(h *Handler, w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			h := c.h.Load()
			if h == nil {
				writeJSON(w, http.StatusServiceUnavailable, BatchResult{Results: []Result{}, Error: "no epoch is open yet"})
				return
			}
			f(h, w, r)
		}
	}
	mux.HandleFunc("GET /epoch/order", with((*Handler).order))
	mux.HandleFunc("POST /epoch/reports", with((*Handler).reports))
	mux.HandleFunc("GET /epoch/progress", with((*Handler).progress))
	mux.HandleFunc("GET /epoch/{$}", with((*Handler).page))
}

// Page is the current epoch's progress page.
func (c *Current) Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := c.h.Load(); h != nil {
			h.page(w, r)
			return
		}
		http.Error(w, "no epoch is open yet", http.StatusServiceUnavailable)
	})
}
