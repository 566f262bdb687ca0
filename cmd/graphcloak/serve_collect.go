package main

import (
	"context"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
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
                         (not-a-report, old-version, other-epoch,
                         other-order, unknown-node, bad-mac),
                         409 (second value), 410 (late, closed), 425 (early)
  GET  /epoch/progress   reported / expected, JSON
  GET  /epoch/ and /     the arrival progress (reported / expected) as a page
Reports are authenticated by their MACs; an accepted report is fsynced to
the journal before the answer, and a duplicate is answered only once its
first copy is. At most --max-connections connections are held open at once,
--max-connections-per-client per client address; beyond either, the oldest
connection that has not carried a report whose MAC verifies is closed (a
batch is at most one report per node of the order and is read up to its
first line that is not a report: docs/local.md). At the order's notAfter the epoch closes and
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
// release (the order, the keys, the journal, the release file, the report
// limits).
type collectServeOptions struct {
	order, coordinatorKey, macKeys, journal, releaseOut string
	limits                                              service.Collection // --max-body, --body-timeout
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
	f.Int64Var(&o.limits.MaxBody, "max-body", local.DefaultMaxBody, "largest report batch accepted, in bytes (413 beyond)")
	durationVar(f, &o.limits.BodyTimeout, "body-timeout", local.DefaultBodyTimeout, "a report batch's body must arrive within this (408 and the connection closed beyond, nothing stored)")
	f.IntVar(&opts.listening.MaxConnections, "max-connections", local.DefaultMaxConnections, "connections held open at once on --listen (beyond, the oldest that has not carried a report whose MAC verifies is closed)")
	f.IntVar(&opts.listening.MaxPerClient, "max-connections-per-client", local.DefaultMaxPerClient, "connections one client address holds open at once (as --max-connections)")
	f.BoolVar(&o.openEpochs, "open-epochs", false, "coordinator and collector in one: open an epoch of a local release at every slot of --schedule and collect it (see below)")
	f.StringVar(&o.signingKey, "signing-key", "", "--open-epochs: the coordinator's Ed25519 signing key (keygen --signing)")
	f.StringVar(&opts.listening.TLSCert, "tls-cert", "", "serve over HTTPS with this certificate (PEM; with --tls-key)")
	f.StringVar(&opts.listening.TLSKey, "tls-key", "", "the private key of --tls-cert (PEM)")
}

// collection is how serve collects reports, from its flags.
func collection(opts *serveOptions) service.Collection {
	c := opts.collect.limits
	c.Journal, c.Logger, c.Listen = opts.collect.journal, opts.g.logger, opts.listening.Listen
	return c
}

// runServeCollector serves one epoch's collector (--collect-order) until
// a signal, closing the epoch at its notAfter (service.Collector).
func runServeCollector(ctx context.Context, opts *serveOptions) error {
	o := &opts.collect
	if o.openEpochs {
		return runServeEpochs(ctx, opts)
	}
	switch {
	case o.coordinatorKey == "" || o.macKeys == "" || o.journal == "":
		return errkind.Usagef("--collect-order needs --coordinator-key FILE.pub, --mac-keys FILE and --journal DIR")
	case opts.listening.Addr == "":
		return errkind.Usagef(`--collect-order serves reports on --listen: it cannot be ""`)
	}
	if err := o.limits.Check(); err != nil {
		return err
	}
	c := &service.Collector{Collection: collection(opts), ReleaseOut: o.releaseOut, StopWhenClosed: opts.maxRuns > 0,
		Files: local.CollectorFiles{CoordinatorKey: o.coordinatorKey, Order: o.order, MACKeys: o.macKeys, Journal: o.journal}}
	return c.Run(ctx)
}

// runServeEpochs is the coordinator and the collector of a local release
// in one service (--open-epochs, service.Epochs): the flags checked, the
// keys read, the stores opened once.
func runServeEpochs(ctx context.Context, opts *serveOptions) error {
	g, o := opts.g, &opts.collect
	if err := checkServeEpochs(opts); err != nil {
		return err
	}
	e := &service.Epochs{Collection: collection(opts), MACKeysFile: o.macKeys, Env: jobEnv(g), Grace: opts.grace, MaxRuns: opts.maxRuns,
		PublishFailed: "writing the closed epoch to Neo4j failed: run collect --close " + graphNeo4j + " on the journal to finish it"}
	if err := e.ReadInputs(opts.schedule, o.signingKey); err != nil {
		return err
	}
	spec, err := epochSpec(g, stores.EpochInputs{Graph: opts.graph, CachePath: opts.sensitivityCache}, "")
	if err != nil {
		return err
	}
	if err := useWorkStore(g, opts.cacheDir, &spec); err != nil {
		return err
	}
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	st, err := openEpochStores(ctx, g, spec, after)
	if err != nil {
		return err
	}
	defer st.Close(after.Context())
	e.Stores, e.Publish, e.Open.Spec, e.Open.Bookkeeping = st, spec.Neo4j, spec, after.Context
	return e.Run(ctx)
}

// checkServeEpochs refuses the flags --open-epochs cannot serve with.
func checkServeEpochs(opts *serveOptions) error {
	o := &opts.collect
	switch {
	case o.order != "":
		return errkind.Usagef("give --collect-order (collect one epoch's order) or --open-epochs (open one per slot), not both")
	case o.signingKey == "" || o.macKeys == "" || o.journal == "" || opts.schedule == "":
		return errkind.Usagef("--open-epochs needs --schedule, --signing-key FILE, --mac-keys FILE and --journal DIR")
	case opts.listening.Addr == "":
		return errkind.Usagef(`--open-epochs serves orders and reports on --listen: it cannot be ""`)
	}
	if err := o.limits.Check(); err != nil {
		return err
	}
	if opts.g.cfg.Config.Privacy.Epoch != "" {
		return errkind.Usagef("--epoch is not used by serve: each slot's epoch is its start time")
	}
	return nil
}
