package connector

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/notifications"
)

// Options configure Connect. The zero value of every field but URI means
// the documented default.
type Options struct {
	// URI of the server: bolt://, neo4j://, and their +s (TLS, verified
	// certificate) and +ssc (TLS, self-signed accepted) variants. Other
	// schemes are refused with *ArgumentError. It must not contain
	// credentials.
	URI string
	// User for basic authentication. Default "neo4j". With an empty
	// Password and NoAuth set, no authentication is sent.
	User string
	// Password for basic authentication. It never appears in errors.
	Password string
	// NoAuth connects without credentials (servers with auth disabled).
	NoAuth bool
	// Database is the default database of every call whose Projection (or
	// RunRecord, Ledger) does not name one. Default "neo4j".
	Database string
	// ConnectTimeout bounds Connect's VerifyConnectivity (the Bolt
	// handshake included: a socket that accepts but never answers Bolt is
	// noticed after it) and each socket connection attempt. Default 15 s.
	ConnectTimeout time.Duration
	// AcquisitionTimeout bounds waiting for a pooled connection (and
	// opening one). Default 30 s.
	AcquisitionTimeout time.Duration
	// MaxTransactionRetryTime bounds the retries of one managed
	// transaction (read, write batch, ledger charge). Default 30 s; with a
	// TransactionTimeout it is at most that (see retryTime).
	MaxTransactionRetryTime time.Duration
	// FetchSize is the number of records per Bolt PULL in streaming reads.
	// Default 10000; negative means one PULL for everything (neo4j.FetchAll):
	// the server then streams without waiting for the client, which reads
	// records one by one (TCP flow control bounds the memory).
	FetchSize int
	// MaxConnectionPoolSize caps the driver's pool. Default 8.
	MaxConnectionPoolSize int
	// TransactionTimeout limits each transaction (a node or relationship
	// pass, a write batch, a ledger charge, a run-record update): the
	// server terminates it after this long, and the client gives up after
	// this plus AcquisitionTimeout when the server does not answer at all
	// (a stalled server). Both give *TimeoutError. Default 0: no limit of
	// graphcloak's own (the server's db.transaction.timeout applies).
	TransactionTimeout time.Duration
}

// Client is a connection to one Neo4j DBMS: one driver, safe for
// concurrent use. Close it when done.
type Client struct {
	driver    neo4j.DriverWithContext
	uri       string
	user      string
	database  string
	fetchSize int
	txTimeout time.Duration
	// acquireTimeout is added to txTimeout for the client-side deadline.
	acquireTimeout time.Duration

	mu          sync.Mutex
	constrained map[string]bool // databases whose constraints exist
}

var allowedSchemes = map[string]bool{
	"bolt": true, "bolt+s": true, "bolt+ssc": true,
	"neo4j": true, "neo4j+s": true, "neo4j+ssc": true,
}

// Connect creates the process's driver for opt.URI and verifies
// connectivity and credentials (VerifyConnectivity) within
// opt.ConnectTimeout. It returns *ArgumentError for a malformed URI or
// scheme, *UnreachableError when the server cannot be reached and
// *AuthError when the credentials are refused.
func Connect(ctx context.Context, opt Options) (*Client, error) {
	u, err := url.Parse(opt.URI)
	if err != nil || u.Host == "" {
		return nil, &ArgumentError{Param: "uri", Value: redactURI(opt.URI),
			Reason: "is not a URI like bolt://host:7687"}
	}
	if !allowedSchemes[u.Scheme] {
		return nil, &ArgumentError{Param: "uri", Value: redactURI(opt.URI),
			Reason: "has an unsupported scheme (use bolt://, neo4j://, bolt+s://, neo4j+s://, bolt+ssc:// or neo4j+ssc://)"}
	}
	if u.User != nil {
		return nil, &ArgumentError{Param: "uri", Value: redactURI(opt.URI),
			Reason: "must not contain credentials (use the user option and the password environment variable)"}
	}
	if opt.User == "" {
		opt.User = "neo4j"
	}
	if opt.Database == "" {
		opt.Database = "neo4j"
	}
	if err := checkDatabase(opt.Database); err != nil {
		return nil, err
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = 15 * time.Second
	}
	if opt.AcquisitionTimeout <= 0 {
		opt.AcquisitionTimeout = 30 * time.Second
	}
	opt.MaxTransactionRetryTime = retryTime(opt)
	if opt.FetchSize == 0 {
		opt.FetchSize = 10_000
	} else if opt.FetchSize < 0 {
		opt.FetchSize = neo4j.FetchAll
	}
	if opt.MaxConnectionPoolSize <= 0 {
		opt.MaxConnectionPoolSize = 8
	}
	token := neo4j.BasicAuth(opt.User, opt.Password, "")
	if opt.NoAuth {
		token = neo4j.NoAuth()
	}
	uri := u.String()
	driversOpened.Add(1)
	drv, err := neo4j.NewDriverWithContext(uri, token, func(c *config.Config) {
		c.SocketConnectTimeout = opt.ConnectTimeout
		c.ConnectionAcquisitionTimeout = opt.AcquisitionTimeout
		c.MaxTransactionRetryTime = opt.MaxTransactionRetryTime
		c.MaxConnectionPoolSize = opt.MaxConnectionPoolSize
		c.FetchSize = opt.FetchSize
		c.TelemetryDisabled = true
		c.NotificationsMinSeverity = notifications.WarningLevel
		c.UserAgent = "graphcloak"
	})
	if err != nil {
		return nil, &ArgumentError{Param: "uri", Value: redactURI(opt.URI), Reason: "is not usable: " + scrubQuery(err.Error(), u)}
	}
	c := &Client{driver: drv, uri: redactURI(uri), user: opt.User, database: opt.Database, fetchSize: opt.FetchSize,
		txTimeout: opt.TransactionTimeout, acquireTimeout: opt.AcquisitionTimeout}
	vctx, cancel := context.WithTimeout(ctx, opt.ConnectTimeout)
	defer cancel()
	if err := drv.VerifyConnectivity(vctx); err != nil {
		drv.Close(context.Background())
		if ctx.Err() == nil && vctx.Err() != nil {
			return nil, &UnreachableError{URI: redactURI(uri), Op: "connect",
				Err: fmt.Errorf("no answer within %v: %w", opt.ConnectTimeout, vctx.Err())}
		}
		return nil, c.classify("connect", err)
	}
	return c, nil
}

// driversOpened counts the drivers Connect has opened in this process.
var driversOpened atomic.Int64

// DriversOpened is how many drivers Connect has opened in this process
// (failed connections included): DESIGN.md's one driver per process is
// checked with it.
func DriversOpened() int64 { return driversOpened.Load() }

// Close closes the driver and its connections.
func (c *Client) Close(ctx context.Context) error {
	// Bounded: closing connections to a server that stopped answering must
	// not keep the process alive.
	cctx, cancel := context.WithTimeout(ctx, max(c.acquireTimeout, 5*time.Second))
	defer cancel()
	return c.driver.Close(cctx)
}

// URI returns the server URI (it holds no credentials).
func (c *Client) URI() string { return c.uri }

// Database returns the client's default database.
func (c *Client) Database() string { return c.database }

// db returns name, or the client's default database when name is "".
func (c *Client) db(name string) (string, error) {
	if name == "" {
		return c.database, nil
	}
	return name, checkDatabase(name)
}

// retryTime is the driver's retry window of one managed transaction. A
// run's timeouts bound each transaction on the client side at
// TransactionTimeout + AcquisitionTimeout (txContext), retries included;
// the driver's own window (30 s by default) would outlast that, so a
// transient failure retried until the deadline would be reported as a
// timeout, and the run's last step could not fit its timeouts. Tied to
// TransactionTimeout, the retries end inside the deadline and the error
// is the failure itself. Without a TransactionTimeout the run has no
// such deadline and the default (or the option) applies.
func retryTime(opt Options) time.Duration {
	d := opt.MaxTransactionRetryTime
	if d <= 0 {
		d = 30 * time.Second
	}
	if opt.TransactionTimeout > 0 {
		d = min(d, opt.TransactionTimeout)
	}
	return d
}

// session opens a session on database db.
func (c *Client) session(ctx context.Context, db string, mode neo4j.AccessMode) neo4j.SessionWithContext {
	return c.driver.NewSession(ctx, neo4j.SessionConfig{
		DatabaseName: db,
		AccessMode:   mode,
		FetchSize:    c.fetchSize,
	})
}

// txConfig is the per-transaction configuration.
func (c *Client) txConfig() []func(*neo4j.TransactionConfig) {
	if c.txTimeout <= 0 {
		return nil
	}
	return []func(*neo4j.TransactionConfig){neo4j.WithTxTimeout(c.txTimeout)}
}

// redactURI drops any user info from a URI before it is shown.
func redactURI(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparseable URI)"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…" // a query string may hold credentials: never echoed
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// scrubQuery removes the URI's query string from a driver message.
func scrubQuery(msg string, u *url.URL) string {
	if u.RawQuery != "" {
		msg = strings.ReplaceAll(msg, u.RawQuery, "…")
	}
	return msg
}

// Ping checks that database ("" = the client's default) answers one
// auto-commit read (RETURN 1) within ctx, without the managed
// transactions' retries (a refused connection is an answer at once): nil,
// or the classified error (*UnreachableError, *AuthError, …). serve's
// /healthz probes with it.
func (c *Client) Ping(ctx context.Context, database string) error {
	db, err := c.db(database)
	if err != nil {
		return err
	}
	tctx, cancel := c.txContext(ctx)
	defer cancel()
	s := c.session(tctx, db, neo4j.AccessModeRead)
	defer c.closeSession(ctx, s)
	res, err := s.Run(tctx, "RETURN 1", nil, c.txConfig()...)
	if err == nil {
		_, err = res.Consume(tctx)
	}
	if err != nil {
		return c.classifyTimed(ctx, tctx, "ping", err)
	}
	return nil
}
