package main

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/sensor"
	"github.com/graphcloak/graphcloak/service"
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
                         bytes: 413 beyond, nothing stored); the answer lists
                         each report's result; status 200 when every report is
                         stored (now or before), else the first that applies of
                         503 (journal failed), 400 (malformed line), 422
                         (not-a-report, other-epoch, unknown-node, bad-mac),
                         409 (second value), 410 (late, closed), 425 (early)
  GET  /epoch/progress   reported / expected, JSON
  GET  /epoch/ and /     the arrival progress (reported / expected) as a page
Reports are authenticated by their MACs; an accepted report is fsynced to
the journal before the answer. At the order's notAfter the epoch closes and
its release file is written to --release-out (default
DIR/<releaseId>.release.json); serve goes on answering (410) until stopped.
--schedule is not used in this mode; --max-runs (any value > 0) stops serve
once the epoch is closed. /metrics adds
graphcloak_reports_received_total, _accepted_total, _refused_total{reason},
_late_total and graphcloak_epoch_expected_reports / graphcloak_epoch_reported.

TLS: --tls-cert and --tls-key (PEM) serve every endpoint over HTTPS.`

// collectServeOptions are serve's flags of a collector of a local
// release (the order, the keys, the journal, the release file) and of TLS
// (every mode).
type collectServeOptions struct {
	order, coordinatorKey, macKeys, journal, releaseOut string
	maxBody                                             int64
	tlsCert, tlsKey                                     string
}

func addCollectFlags(f *pflag.FlagSet, opts *serveOptions) {
	o := &opts.collect
	f.StringVar(&o.order, "collect-order", "", "serve as the collector of this signed epoch order (local release; see below)")
	f.StringVar(&o.coordinatorKey, "coordinator-key", "", "the coordinator's public key that signed --collect-order")
	f.StringVar(&o.macKeys, "mac-keys", "", "the sensors' report-MAC keys, CSV node,reportMacKeyHex (keygen --mac-csv)")
	f.StringVar(&o.journal, "journal", "", "directory of the collected epoch's journal")
	f.StringVar(&o.releaseOut, "release-out", "", "release file of the collected epoch once closed (default DIR/<releaseId>.release.json)")
	f.Int64Var(&o.maxBody, "max-body", local.DefaultMaxBody, "largest report batch accepted, in bytes (413 beyond)")
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
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return nil, inputErrorf("--listen: %w", err)
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	return ln, nil
}

// runServeCollector serves one epoch's collector (--collect-order) until
// a signal, closing the epoch at its notAfter.
func runServeCollector(ctx context.Context, opts *serveOptions) error {
	g, o := opts.g, &opts.collect
	switch {
	case o.coordinatorKey == "" || o.macKeys == "" || o.journal == "":
		return usageErrorf("--collect-order needs --coordinator-key FILE.pub, --mac-keys FILE and --journal DIR")
	case opts.listen == "":
		return usageErrorf(`--collect-order serves reports on --listen: it cannot be ""`)
	case o.maxBody <= 0:
		return inputErrorf("--max-body must be > 0, got %d", o.maxBody)
	}
	pub, err := sensor.LoadCoordinatorKey(o.coordinatorKey)
	if err != nil {
		return inputError{err}
	}
	order, env, err := local.ReadOrderFile(o.order, pub)
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
	c, err := local.OpenCollector(local.CollectorOptions{Order: order, MACKeys: keys, JournalDir: o.journal})
	if err != nil {
		return err
	}
	defer c.Close()
	m := metrics.New()
	m.EnableReports()
	progress := func() {
		p := c.Progress()
		m.EpochProgress(p.Scope, p.Epoch, p.Expected, p.Reported)
	}
	progress()
	h := &local.Handler{Collector: c, Order: env, MaxBody: o.maxBody, Observe: func(res []local.Result) {
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
	ln, err := serveListener(opts)
	if err != nil {
		return err
	}
	out := o.releaseOut
	if out == "" {
		out = filepath.Join(o.journal, order.ReleaseID+".release.json")
	}
	closed := make(chan struct{}) // the epoch closed and its release file written (or failed)
	closeAt := func() {
		defer close(closed)
		rel, err := c.CloseEpoch(buildinfo.Read().String())
		if err == nil {
			_, err = local.WriteRelease(out, rel)
		}
		if err != nil {
			g.logger.Error("closing the epoch failed", "epoch", order.Epoch, "error", err)
			return
		}
		g.logger.Info("epoch closed", "epoch", order.Epoch, "releaseId", order.ReleaseID, "reported", rel.Meta.N,
			"missing", len(rel.Meta.Missing), "release", out)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	timer := time.AfterFunc(time.Until(order.NotAfter), closeAt)
	defer func() {
		if !timer.Stop() {
			<-closed // closing: let it finish before the journal is closed
		}
	}()
	if opts.maxRuns > 0 { // --max-runs: stop once the epoch is closed
		go func() {
			select {
			case <-ctx.Done():
			case <-closed:
				stop()
			}
		}()
	}
	svc := &service.Service{Metrics: m, Logger: g.logger, Listener: ln, Routes: h.Routes, Page: h.Page()}
	g.logger.Info("collecting", "epoch", order.Epoch, "scope", order.Scope, "releaseId", order.ReleaseID,
		"expected", len(order.Nodes), "notAfter", order.NotAfter.Format(time.RFC3339), "listen", ln.Addr().String())
	return svc.Run(ctx, nil)
}
