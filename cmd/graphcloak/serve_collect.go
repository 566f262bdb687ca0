package main

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/sensor"
	"github.com/graphcloak/graphcloak/service"
	"github.com/graphcloak/graphcloak/stores"
	"github.com/spf13/pflag"
)

// serveCollectHelp is the part of serve's help about the collector.
const serveCollectHelp = `

Collector of a local release (--collect-order FILE, docs/local.md): serve
holds one epoch's signed order (checked against --coordinator-key), the
sensors' report-MAC keys (--mac-keys) and the epoch's journal (--journal
DIR), and serves, besides /metrics and /healthz:
  GET  /epoch/order      the signed epoch order, for the sensors
  POST /epoch/reports    a batch of reports (JSON Lines, at most --max-body
                         bytes: 413 beyond, nothing stored; its body read
                         within --body-timeout: 408 beyond); the answer lists
                         each report's result, never longer than the batch
                         (or 512 bytes: the results past it are left out and
                         counted); status 200 when every report is
                         stored (now or before), else the first that applies of
                         503 (journal failed), 400 (malformed line), 422
                         (not-a-report, other-epoch, unknown-node, bad-mac),
                         409 (second value), 410 (late, closed), 425 (early)
  GET  /epoch/progress   reported / expected, JSON
  GET  /epoch/ and /     the arrival progress (reported / expected) as a page
Reports are authenticated by their MACs; an accepted report is fsynced to
the journal before the answer, and a duplicate is answered only once its
first copy is. At most --max-connections connections are held open at once. At the order's notAfter the epoch closes and
its release file is written to --release-out (default
DIR/<releaseId>.release.json); serve goes on answering (410) until stopped.
--schedule is not used in this mode; --max-runs (any value > 0) stops serve
once the epoch is closed. /metrics adds
graphcloak_reports_received_total, _accepted_total, _refused_total{reason},
_late_total and graphcloak_epoch_expected_reports / graphcloak_epoch_reported.

Coordinator and collector in one (--open-epochs, with --schedule,
--signing-key, --mac-keys and --journal DIR, the graph, τ, α, ε, δ, the
ledger and --scope as for epoch open): at every slot serve opens the slot's
epoch exactly as epoch open does (Δ2 certified, reused from
--sensitivity-cache; charged once; the order in DIR/EPOCH.order, its
window the slot), serves it at /epoch/order, collects its reports, and
closes it at the slot's end into DIR/<releaseId>.release.json. An @every
schedule opens the current slot's epoch at start (a restart within the slot
re-publishes it, nothing charged); a cron schedule's first epoch opens at its
next firing. --max-runs N opens N slots' epochs (the current @every slot's
among them) and stops once the last is closed. On --graph neo4j each
closed epoch is also written to the projection (--write-property) under a
release run, as collect --graph neo4j writes it.

TLS: --tls-cert and --tls-key (PEM) serve every endpoint over HTTPS.`

// collectServeOptions are serve's flags of a collector of a local
// release (the order, the keys, the journal, the release file) and of TLS
// (every mode).
type collectServeOptions struct {
	order, coordinatorKey, macKeys, journal, releaseOut string
	maxBody                                             int64
	bodyTimeout                                         time.Duration
	maxConnections                                      int
	tlsCert, tlsKey                                     string
	// openEpochs opens an epoch per slot, signed with signingKey.
	openEpochs bool
	signingKey string
}

func addCollectFlags(f *pflag.FlagSet, opts *serveOptions) {
	o := &opts.collect
	f.StringVar(&o.order, "collect-order", "", "serve as the collector of this signed epoch order (local release; see below)")
	f.StringVar(&o.coordinatorKey, "coordinator-key", "", "the coordinator's public key that signed --collect-order")
	f.StringVar(&o.macKeys, "mac-keys", "", "the sensors' report-MAC keys, CSV node,reportMacKeyHex (keygen --mac-csv)")
	f.StringVar(&o.journal, "journal", "", "directory of the collected epoch's journal")
	f.StringVar(&o.releaseOut, "release-out", "", "release file of the collected epoch once closed (default DIR/<releaseId>.release.json)")
	f.Int64Var(&o.maxBody, "max-body", local.DefaultMaxBody, "largest report batch accepted, in bytes (413 beyond)")
	durationVar(f, &o.bodyTimeout, "body-timeout", local.DefaultBodyTimeout, "a report batch's body must arrive within this (408 and the connection closed beyond, nothing stored)")
	f.IntVar(&o.maxConnections, "max-connections", local.DefaultMaxConnections, "connections held open at once on --listen (more wait)")
	f.BoolVar(&o.openEpochs, "open-epochs", false, "coordinator and collector in one: open an epoch of a local release at every slot of --schedule and collect it (see below)")
	f.StringVar(&o.signingKey, "signing-key", "", "--open-epochs: the coordinator's Ed25519 signing key (keygen --signing)")
	f.StringVar(&o.tlsCert, "tls-cert", "", "serve over HTTPS with this certificate (PEM; with --tls-key)")
	f.StringVar(&o.tlsKey, "tls-key", "", "the private key of --tls-cert (PEM)")
}

// serveListener listens on --listen, over TLS with --tls-cert/--tls-key.
func serveListener(opts *serveOptions) (net.Listener, error) {
	o := &opts.collect
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return nil, usageErrorf("give both --tls-cert and --tls-key, or neither")
	}
	var cfg *tls.Config
	if o.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return nil, inputErrorf("--tls-cert/--tls-key: %w", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if o.maxConnections < 1 {
		return nil, inputErrorf("--max-connections must be ≥ 1, got %d", o.maxConnections)
	}
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return nil, inputErrorf("--listen: %w", err)
	}
	ln = local.LimitListener(ln, o.maxConnections)
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	return ln, nil
}

// epochRun is one epoch's collector in serve: its handler, and the close
// at the order's notAfter into the release file.
type epochRun struct {
	g      *globalOptions
	order  local.Order
	c      *local.Collector
	h      *local.Handler
	out    string // the release file
	timer  *time.Timer
	once   sync.Once
	closed chan struct{} // closed once the epoch is closed and its file written (or that failed)
	// publish, when set, writes the closed release to Neo4j (an epoch
	// opened on the projection: serve --open-epochs --graph neo4j).
	publish func(ctx context.Context, rel *privacy.Released) (string, error)
}

// startEpoch opens the collector of the order (env, its signed envelope)
// on the journal in dir, counts its reports in m and closes the epoch at
// its notAfter into out ("": DIR/<releaseId>.release.json).
func startEpoch(g *globalOptions, o *collectServeOptions, m *metrics.Metrics, order local.Order, env []byte, keys map[string][]byte, out string) (*epochRun, error) {
	c, err := local.OpenCollector(local.CollectorOptions{Order: order, MACKeys: keys, JournalDir: o.journal})
	if err != nil {
		return nil, err
	}
	if out == "" {
		out = filepath.Join(o.journal, order.ReleaseID+".release.json")
	}
	e := &epochRun{g: g, order: order, c: c, out: out, closed: make(chan struct{})}
	progress := func() {
		p := c.Progress()
		m.EpochProgress(p.Scope, p.Epoch, p.Expected, p.Reported)
	}
	m.NewEpoch()
	progress()
	e.h = &local.Handler{Collector: c, Order: env, MaxBody: o.maxBody, BodyTimeout: o.bodyTimeout, Observe: func(res []local.Result) {
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
	g.logger.Info("collecting", "epoch", order.Epoch, "scope", order.Scope, "releaseId", order.ReleaseID,
		"expected", len(order.Nodes), "notAfter", order.NotAfter.Format(time.RFC3339))
	return e, nil
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
			e.g.logger.Error("closing the epoch failed", "epoch", e.order.Epoch, "error", err)
			return
		}
		e.g.logger.Info("epoch closed", "epoch", e.order.Epoch, "releaseId", e.order.ReleaseID, "reported", rel.Meta.N,
			"missing", len(rel.Meta.Missing), "release", e.out)
		if e.publish != nil {
			runID, err := e.publish(context.Background(), rel)
			if err != nil {
				e.g.logger.Error("writing the closed epoch to Neo4j failed: run collect --close --graph neo4j on the journal to finish it", "epoch", e.order.Epoch, "error", err)
				return
			}
			e.g.logger.Info("epoch written to Neo4j", "epoch", e.order.Epoch, "runId", runID)
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

// runServeCollector serves one epoch's collector (--collect-order) until
// a signal, closing the epoch at its notAfter.
func runServeCollector(ctx context.Context, opts *serveOptions) error {
	g, o := opts.g, &opts.collect
	if o.openEpochs {
		return runServeEpochs(ctx, opts)
	}
	switch {
	case o.coordinatorKey == "" || o.macKeys == "" || o.journal == "":
		return usageErrorf("--collect-order needs --coordinator-key FILE.pub, --mac-keys FILE and --journal DIR")
	case opts.listen == "":
		return usageErrorf(`--collect-order serves reports on --listen: it cannot be ""`)
	case o.maxBody <= 0:
		return inputErrorf("--max-body must be > 0, got %d", o.maxBody)
	case o.bodyTimeout <= 0:
		return inputErrorf("--body-timeout must be > 0, got %v", o.bodyTimeout)
	}
	order, env, keys, err := readCollectInputs(o.coordinatorKey, o.order, o.macKeys, o.journal)
	if err != nil {
		return err
	}
	ln, err := serveListener(opts)
	if err != nil {
		return err
	}
	m := metrics.New()
	e, err := startEpoch(g, o, m, order, env, keys, o.releaseOut)
	if err != nil {
		_ = ln.Close() // the epoch's error is the one to report
		return err
	}
	defer e.stop()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if opts.maxRuns > 0 { // --max-runs: stop once the epoch is closed
		go func() {
			select {
			case <-ctx.Done():
			case <-e.closed:
				stop()
			}
		}()
	}
	svc := &service.Service{Metrics: m, Logger: g.logger, Listener: ln, Routes: e.h.Routes, Page: e.h.Page()}
	return svc.Run(ctx, nil)
}

// runServeEpochs is the coordinator and the collector of a local release
// in one service (--open-epochs): at once and at every slot of
// --schedule it opens the slot's epoch (the window is the slot; the order
// in DIR/EPOCH.order; charged once, re-published by a restart within the
// slot), serves its order and collects its reports; the epoch closes at
// the slot's end into DIR/<releaseId>.release.json.
func runServeEpochs(ctx context.Context, opts *serveOptions) error {
	g, o := opts.g, &opts.collect
	cfg := &g.cfg.Config
	switch {
	case o.order != "":
		return usageErrorf("give --collect-order (collect one epoch's order) or --open-epochs (open one per slot), not both")
	case o.signingKey == "" || o.macKeys == "" || o.journal == "" || opts.schedule == "":
		return usageErrorf("--open-epochs needs --schedule, --signing-key FILE, --mac-keys FILE and --journal DIR")
	case opts.listen == "":
		return usageErrorf(`--open-epochs serves orders and reports on --listen: it cannot be ""`)
	case o.maxBody <= 0:
		return inputErrorf("--max-body must be > 0, got %d", o.maxBody)
	case o.bodyTimeout <= 0:
		return inputErrorf("--body-timeout must be > 0, got %v", o.bodyTimeout)
	case cfg.Privacy.Epoch != "":
		return usageErrorf("--epoch is not used by serve: each slot's epoch is its start time")
	}
	sched, err := schedule.Parse(opts.schedule)
	if err != nil {
		return inputErrorf("--schedule: %w", err)
	}
	signer, err := sensor.LoadSigningKey(o.signingKey)
	if err != nil {
		return inputError{err}
	}
	keys, err := local.ReadMACKeysFile(o.macKeys)
	if err != nil {
		return inputError{err}
	}
	if err := os.MkdirAll(o.journal, 0o755); err != nil {
		return inputErrorf("--journal: %w", err)
	}
	spec, err := epochSpec(g, opts.graph, "", opts.sensitivityCache, 0, "")
	if err != nil {
		return err
	}
	if err := useWorkStore(g, opts.cacheDir, &spec); err != nil {
		return err
	}
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	st, err := stores.Open(ctx, g.cfg, storesOptions(g, after, stores.Options{Neo4j: spec.Neo4j || cfg.Privacy.Ledger == "neo4j", Ledger: stores.ReadWrite}))
	if err != nil {
		return withInitHint(cfg, err)
	}
	defer st.Close(after.Context())
	opener := &epochOpener{g: g, spec: spec, st: st, signer: signer, after: after.Context}
	pub := signer.Public().(ed25519.PublicKey)
	m := metrics.New()
	var cur local.Current
	var mu sync.Mutex
	var open *epochRun
	// --max-runs N: N slots, the current @every slot's among them; the
	// last slot's epoch is collected until it closes, then serve stops
	// (the runner's own count would open an epoch, charge it and stop at
	// once, leaving it uncollected).
	serveCtx, stopServe := context.WithCancel(ctx)
	defer stopServe()
	slots := 0
	slotJob := func(ctx context.Context, slot time.Time) error {
		mu.Lock()
		if opts.maxRuns > 0 && slots >= opts.maxRuns {
			mu.Unlock()
			return nil // after the last slot: serve is stopping
		}
		slots++
		last := opts.maxRuns > 0 && slots == opts.maxRuns
		mu.Unlock()
		var e *epochRun
		if last {
			defer func() { stopAfter(serveCtx, e, stopServe, g) }()
		}
		epoch, out := sched.Epoch(slot), filepath.Join(o.journal, sched.Epoch(slot)+".order")
		if _, err := opener.open(ctx, epoch, slot, sched.Next(slot), out); err != nil {
			g.logger.Error("opening the epoch failed", "epoch", epoch, "error", err)
			return err
		}
		order, env, err := local.ReadOrderFile(out, pub)
		if err != nil {
			return err
		}
		e, err = startEpoch(g, o, m, order, env, keys, "")
		if err != nil {
			return err
		}
		if spec.Neo4j {
			e.publish = func(ctx context.Context, rel *privacy.Released) (string, error) {
				return publishCollected(ctx, g, st, rel)
			}
		}
		cur.Set(e.h)
		mu.Lock()
		prev := open
		open = e
		mu.Unlock()
		if prev != nil { // its slot has ended: closed now if its timer has not yet
			prev.closeEpoch()
			prev.stop()
		}
		return nil
	}
	// The current slot at once when it is an @every slot (a restart within
	// it re-publishes its order: no new charge); a cron schedule's slot is
	// named by its firing, so its first epoch opens at the next firing.
	if strings.HasPrefix(sched.String(), "@every") {
		if err := slotJob(ctx, sched.Slot(time.Now())); err != nil {
			return err
		}
	}
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		if open != nil {
			open.stop()
		}
	}()
	ln, err := serveListener(opts)
	if err != nil {
		return err
	}
	svc := &service.Service{Metrics: m, Logger: g.logger, Listener: ln, Routes: cur.Routes, Page: cur.Page(),
		Runner: &schedule.Runner{Spec: sched, Grace: opts.grace, Logger: g.logger}}
	return svc.Run(serveCtx, slotJob)
}

// stopAfter calls stop once the last slot's epoch e is closed (at once
// when it did not open: e nil), unless ctx ends first.
func stopAfter(ctx context.Context, e *epochRun, stop func(), g *globalOptions) {
	if e == nil {
		stop()
		return
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-e.closed:
			g.logger.Info("stopping after the last slot's epoch closed", "epoch", e.order.Epoch)
			stop()
		}
	}()
}
