package service

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/sensor"
	"github.com/graphcloak/graphcloak/stores"
)

// What serve runs of a local release (docs/local.md): one epoch's
// collector (Collector, serve --collect-order), or the coordinator and the
// collector in one (Epochs, serve --open-epochs), each a Service whose
// routes are the collector's /epoch/ endpoints.

// Listen listens on addr, holding at most maxConnections connections open
// at once, perClient of them per client address (local.LimitListener),
// over TLS when tlsConfig is set.
func Listen(addr string, maxConnections, perClient int, tlsConfig *tls.Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ln = local.LimitListener(ln, maxConnections, perClient)
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	return ln, nil
}

// Collection is how serve collects an epoch's reports.
type Collection struct {
	// Journal is the directory of the epochs' journals and, by default,
	// their release files (<releaseId>.release.json).
	Journal string
	// MaxBody and BodyTimeout bound a report batch (local.Handler).
	MaxBody     int64
	BodyTimeout time.Duration
	Logger      *slog.Logger
	// Listen opens the listener of /metrics, /healthz and the /epoch/
	// endpoints, once the epoch to serve is open (Listen).
	Listen func() (net.Listener, error)
}

func (c *Collection) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// Collector serves one epoch's signed order and collects its reports
// until ctx ends, closing the epoch at the order's notAfter into its
// release file.
type Collector struct {
	Collection
	// Files are the order, the keys and the journal (Files.Journal is
	// Collection.Journal when empty).
	Files local.CollectorFiles
	// ReleaseOut is the closed epoch's release file ("": in the journal).
	ReleaseOut string
	// StopWhenClosed stops the service once the epoch is closed.
	StopWhenClosed bool
}

// Run opens the collector and serves it until ctx ends (or, with
// StopWhenClosed, the epoch is closed).
func (s *Collector) Run(ctx context.Context) error {
	files := s.Files
	if files.Journal == "" {
		files.Journal = s.Journal
	}
	c, env, err := local.OpenCollectorFiles(files)
	if err != nil {
		return err
	}
	ln, err := s.Listen()
	if err != nil {
		c.Close()
		return err
	}
	m := metrics.New()
	e := s.start(m, c, env, s.ReleaseOut)
	defer e.stop()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if s.StopWhenClosed {
		go func() {
			select {
			case <-ctx.Done():
			case <-e.closed:
				stop()
			}
		}()
	}
	svc := &Service{Metrics: m, Logger: s.logger(), Listener: ln, Routes: e.h.Routes, Page: e.h.Page()}
	return svc.Run(ctx, nil)
}

// Epochs is the coordinator and the collector of a local release in one
// service: at every slot of Schedule it opens the slot's epoch on Stores
// (Stores.OpenEpoch: the window is the slot, the order in
// Journal/EPOCH.order, charged once, re-published by a restart within the
// slot), serves its order and collects its reports; the epoch closes at
// the slot's end into Journal/<releaseId>.release.json.
type Epochs struct {
	Collection
	Stores *stores.Stores
	// Open is every epoch's request: its spec, signer and bookkeeping
	// (the epoch, window and order file are the slot's).
	Open stores.EpochRequest
	// MACKeysFile holds the sensors' report-MAC keys (local.ReadMACKeysFile).
	MACKeysFile string
	// Env is the calibration's and the publication's environment (logger,
	// progress, messages).
	Env      job.Env
	Schedule schedule.Spec
	Grace    time.Duration
	// MaxRuns > 0 opens that many slots' epochs (the current @every
	// slot's among them) and stops once the last is closed.
	MaxRuns int
	// Publish writes each closed epoch to the stores' projection under a
	// release run (Stores.PublishCollected); PublishFailed is what the log
	// tells the operator to do when that fails.
	Publish       bool
	PublishFailed string
}

// Run opens the current @every slot's epoch at once (a cron schedule's
// first epoch opens at its next firing) and serves until ctx ends or the
// last of MaxRuns epochs is closed.
func (s *Epochs) Run(ctx context.Context) error {
	keys, err := local.ReadMACKeysFile(s.MACKeysFile)
	if err != nil {
		return errkind.Input(err)
	}
	l := &epochLoop{Epochs: s, keys: keys, m: metrics.New()}
	// --max-runs N: N slots; the last slot's epoch is collected until it
	// closes, then serve stops (the runner's own count would open an
	// epoch, charge it and stop at once, leaving it uncollected).
	serveCtx, stopServe := context.WithCancel(ctx)
	defer stopServe()
	l.stopServe, l.serveCtx = stopServe, serveCtx
	defer l.stopOpen()
	// A restart within an @every slot re-publishes its order: no new
	// charge; a cron slot is named by its firing.
	if strings.HasPrefix(s.Schedule.String(), "@every") {
		if err := l.slot(ctx, s.Schedule.Slot(time.Now())); err != nil {
			return err
		}
	}
	ln, err := s.Listen()
	if err != nil {
		return err
	}
	svc := &Service{Metrics: l.m, Logger: s.logger(), Listener: ln, Routes: l.cur.Routes, Page: l.cur.Page(),
		Runner: &schedule.Runner{Spec: s.Schedule, Grace: s.Grace, Logger: s.logger()}}
	return svc.Run(serveCtx, l.slot)
}

// epochLoop is the state of Epochs.Run: the epoch being collected.
type epochLoop struct {
	*Epochs
	keys      map[string][]byte
	m         *metrics.Metrics
	cur       local.Current
	mu        sync.Mutex
	open      *epochRun
	slots     int
	serveCtx  context.Context
	stopServe func()
}

// slot opens the slot's epoch and collects it in place of the previous
// one, which is closed now if its timer has not yet.
func (l *epochLoop) slot(ctx context.Context, slot time.Time) error {
	l.mu.Lock()
	if l.MaxRuns > 0 && l.slots >= l.MaxRuns {
		l.mu.Unlock()
		return nil // after the last slot: serve is stopping
	}
	l.slots++
	last := l.MaxRuns > 0 && l.slots == l.MaxRuns
	l.mu.Unlock()
	var e *epochRun
	if last {
		defer func() { l.stopAfter(e) }()
	}
	req := l.Open
	req.Epoch, req.NotBefore, req.NotAfter = l.Schedule.Epoch(slot), slot, l.Schedule.Next(slot)
	req.Out = filepath.Join(l.Journal, req.Epoch+".order")
	opened, err := l.Stores.OpenEpoch(ctx, req, l.Env)
	if err != nil {
		l.logger().Error("opening the epoch failed", "epoch", req.Epoch, "error", err)
		return err
	}
	// The order as a collector reads it: verified under the signer's key.
	order, env, err := local.ReadOrderFile(opened.Out, l.Open.Signer.Public().(ed25519.PublicKey))
	if err != nil {
		return err
	}
	digest, err := sensor.OrderSHA256(env)
	if err != nil {
		return err
	}
	c, err := local.OpenCollector(local.CollectorOptions{Order: order, OrderSHA256: digest, MACKeys: l.keys, JournalDir: l.Journal})
	if err != nil {
		return err
	}
	e = l.start(l.m, c, env, "")
	if l.Publish {
		e.publishFailed = l.PublishFailed
		e.publish = func(ctx context.Context, rel *privacy.Released) (string, error) {
			after := job.NewBookkeeping(ctx)
			defer after.Close()
			env := l.Env
			env.Bookkeeping = after.Context
			return l.Stores.PublishCollected(ctx, rel, env)
		}
	}
	l.cur.Set(e.h)
	l.mu.Lock()
	prev := l.open
	l.open = e
	l.mu.Unlock()
	if prev != nil { // its slot has ended
		prev.closeEpoch()
		prev.stop()
	}
	return nil
}

// stopOpen releases the journal of the epoch being collected.
func (l *epochLoop) stopOpen() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open != nil {
		l.open.stop()
	}
}

// stopAfter stops serve once the last slot's epoch e is closed (at once
// when it did not open: e nil), unless serve ends first.
func (l *epochLoop) stopAfter(e *epochRun) {
	if e == nil {
		l.stopServe()
		return
	}
	go func() {
		select {
		case <-l.serveCtx.Done():
		case <-e.closed:
			l.logger().Info("stopping after the last slot's epoch closed", "epoch", e.order.Epoch)
			l.stopServe()
		}
	}()
}

// epochRun is one epoch's collector in serve: its handler, and the close
// at the order's notAfter into the release file.
type epochRun struct {
	logger *slog.Logger
	order  local.Order
	c      *local.Collector
	h      *local.Handler
	out    string // the release file
	timer  *time.Timer
	once   sync.Once
	closed chan struct{} // closed once the epoch is closed and its file written (or that failed)
	// publish, when set, writes the closed release to Neo4j; publishFailed
	// is the log's message when that fails.
	publish       func(ctx context.Context, rel *privacy.Released) (string, error)
	publishFailed string
}

// start serves the collector c (env, its order's signed envelope), counts
// its reports in m and closes the epoch at its notAfter into out ("":
// Journal/<releaseId>.release.json).
func (s *Collection) start(m *metrics.Metrics, c *local.Collector, env []byte, out string) *epochRun {
	order := c.Order()
	if out == "" {
		out = filepath.Join(s.Journal, order.ReleaseID+".release.json")
	}
	e := &epochRun{logger: s.logger(), order: order, c: c, out: out, closed: make(chan struct{})}
	progress := func() {
		p := c.Progress()
		m.EpochProgress(p.Scope, p.Epoch, p.Expected, p.Reported)
	}
	m.NewEpoch()
	progress()
	e.h = &local.Handler{Collector: c, Order: env, MaxBody: s.MaxBody, BodyTimeout: s.BodyTimeout, Observe: func(res []local.Result) {
		accepted, refused := 0, []string{}
		for _, r := range res {
			if r.Reason == local.Accepted {
				accepted++
			} else {
				refused = append(refused, string(r.Reason))
			}
		}
		m.Reports(len(res), accepted, refused)
		progress()
	}}
	e.timer = time.AfterFunc(time.Until(order.NotAfter), e.closeEpoch)
	e.logger.Info("collecting", "epoch", order.Epoch, "scope", order.Scope, "releaseId", order.ReleaseID,
		"expected", len(order.Nodes), "notAfter", order.NotAfter.Format(time.RFC3339))
	return e
}

// closeEpoch closes the epoch and writes its release file, once.
func (e *epochRun) closeEpoch() {
	e.once.Do(func() {
		defer close(e.closed)
		rel, err := e.c.CloseEpoch(buildinfo.Read().String())
		if err == nil {
			_, err = local.WriteRelease(e.out, rel)
		}
		if err != nil {
			e.logger.Error("closing the epoch failed", "epoch", e.order.Epoch, "error", err)
			return
		}
		e.logger.Info("epoch closed", "epoch", e.order.Epoch, "releaseId", e.order.ReleaseID, "reported", rel.Meta.N,
			"missing", len(rel.Meta.Missing), "release", e.out)
		if e.publish != nil {
			runID, err := e.publish(context.Background(), rel)
			if err != nil {
				e.logger.Error(e.publishFailed, "epoch", e.order.Epoch, "error", err)
				return
			}
			e.logger.Info("epoch written to Neo4j", "epoch", e.order.Epoch, "runId", runID)
		}
	})
}

// stop releases the journal; an epoch being closed finishes first, one
// not due yet stays open (a restarted serve goes on with its journal).
func (e *epochRun) stop() {
	if !e.timer.Stop() {
		<-e.closed
	}
	e.c.Close()
}
