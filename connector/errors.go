package connector

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The error kinds below let callers (the CLI's exit codes) tell apart what
// went wrong without string matching. None of them ever carries the
// password: driver errors do not contain it and Options are never printed.

// UnreachableError reports a Neo4j server that cannot be reached: refused
// or dropped connections, DNS failures, TLS handshake failures, a server
// that died in the middle of a transaction, or a timeout while connecting.
type UnreachableError struct {
	URI string // the URI as given (it holds no credentials)
	Op  string // what was being done ("connect", "read graph", …)
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("connector: %s: neo4j at %s is unreachable: %v", e.Op, e.URI, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// TimeoutError reports a server that did not answer in time: the
// transaction timeout (Options.TransactionTimeout) was reached, on the
// server or, when the server stalled, on the client. The CLI maps it to
// the "unreachable" exit code.
type TimeoutError struct {
	URI   string
	Op    string
	After time.Duration // the limit that was reached; 0: the caller's context deadline
	Err   error
}

func (e *TimeoutError) Error() string {
	if e.After == 0 {
		return fmt.Sprintf("connector: %s: neo4j at %s did not answer before the run's own deadline: %v", e.Op, e.URI, e.Err)
	}
	return fmt.Sprintf("connector: %s: neo4j at %s did not answer within %v (transaction timeout): %v", e.Op, e.URI, e.After, e.Err)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// AuthError reports rejected credentials (or a user not allowed to run the
// query). Code is the Neo4j status code, e.g.
// Neo.ClientError.Security.Unauthorized.
type AuthError struct {
	URI  string
	User string
	Code string
	Err  error
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("connector: authentication failed for user %q at %s (%s)", e.User, e.URI, e.Code)
}

func (e *AuthError) Unwrap() error { return e.Err }

// QueryError reports a query the server refused or failed: a Neo4j status
// code other than a security or connectivity one (syntax, constraint,
// unknown database, out of memory, a terminated transaction, …).
type QueryError struct {
	Op      string // what was being done
	Code    string // Neo4j status code, "" when unknown
	Message string // the server's message
	Err     error
}

func (e *QueryError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("connector: %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("connector: %s: %s: %s", e.Op, e.Code, e.Message)
}

func (e *QueryError) Unwrap() error { return e.Err }

// IdentifierError reports a label, relationship type or property name that
// breaks the one identifier rule (CheckIdentifier).
// Such names are refused before any query is sent: they cannot be query
// parameters, and quoting alone is not safe (a literal \u0060 closes a
// backtick-quoted name in Neo4j 4.2–5.x).
type IdentifierError struct {
	What   string // "label", "relationship type", "property", "database"
	Name   string
	Reason string
}

func (e *IdentifierError) Error() string {
	return fmt.Sprintf("connector: invalid %s name %q: %s", e.What, e.Name, e.Reason)
}

// SchemaError reports a projection that names something the database does
// not have: a label, relationship type or property key never used.
type SchemaError struct {
	What     string // "label", "relationship type", "property"
	Name     string
	Database string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("connector: database %q has no %s %q", e.Database, e.What, e.Name)
}

// DataError reports graph data that does not fit the projection: nodes
// missing a required property, a non-numeric value or weight, a negative
// weight, a duplicate key. Count is the number of offending items and
// Examples names up to five of them (node keys or relationship element
// ids).
type DataError struct {
	Property string
	Reason   string
	Count    int
	Examples []string
}

func (e *DataError) Error() string {
	ex := ""
	if len(e.Examples) > 0 {
		ex = " (e.g. " + strings.Join(e.Examples, ", ") + ")"
	}
	if e.Property == "" {
		return fmt.Sprintf("connector: %d %s%s", e.Count, e.Reason, ex)
	}
	return fmt.Sprintf("connector: property %q: %d %s%s", e.Property, e.Count, e.Reason, ex)
}

// ArgumentError reports an invalid option (URI scheme, batch size, …).
type ArgumentError struct {
	Param  string
	Value  any // nil when not shown
	Reason string
}

func (e *ArgumentError) Error() string {
	if e.Value == nil {
		return fmt.Sprintf("connector: %s %s", e.Param, e.Reason)
	}
	return fmt.Sprintf("connector: %s = %v %s", e.Param, e.Value, e.Reason)
}

// classify turns a driver error into one of the typed errors above.
// Context cancellation is passed through (wrapped) so callers can map it to
// "interrupted".
func (c *Client) classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var known interface{ connectorError() }
	if errors.As(err, &known) {
		return err
	}
	if errors.Is(err, errRollback) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("connector: %s: %w", op, err)
	}
	// A retried transaction that ran out of attempts: judge by its last error.
	var lim *neo4j.TransactionExecutionLimit
	if errors.As(err, &lim) && len(lim.Errors) > 0 {
		// Keep the whole retry history as the cause.
		switch e := c.classify(op, lim.Errors[len(lim.Errors)-1]).(type) {
		case *UnreachableError:
			e.Err = err
			return e
		case *AuthError:
			e.Err = err
			return e
		case *QueryError:
			e.Err = err
			return e
		case *TimeoutError:
			e.Err = err
			return e
		default:
			return e
		}
	}
	var nerr *neo4j.Neo4jError
	if errors.As(err, &nerr) {
		switch {
		case nerr.HasSecurityCode() || nerr.IsAuthenticationFailed():
			return &AuthError{URI: c.uri, User: c.user, Code: nerr.Code, Err: err}
		case strings.HasPrefix(nerr.Code, "Neo.ClientError.Transaction.TransactionTimedOut"),
			c.txTimeout > 0 && strings.HasSuffix(nerr.Code, ".Transaction.LockClientStopped"):
			// A lock wait ended by the transaction timeout reports the latter.
			return &TimeoutError{URI: c.uri, Op: op, After: c.txTimeout, Err: err}
		case strings.HasPrefix(nerr.Code, "Neo.TransientError.General.DatabaseUnavailable"),
			strings.HasPrefix(nerr.Code, "Neo.ClientError.Cluster.NotALeader"):
			return &UnreachableError{URI: c.uri, Op: op, Err: err}
		}
		return &QueryError{Op: op, Code: nerr.Code, Message: nerr.Msg, Err: err}
	}
	var cerr *neo4j.ConnectivityError
	var tok *neo4j.TokenExpiredError
	switch {
	case errors.As(err, &cerr) && errors.Is(err, context.DeadlineExceeded):
		// The caller's own deadline (e.g. the run's bookkeeping deadline),
		// not the transaction timeout: say which limit it was.
		return &TimeoutError{URI: c.uri, Op: op, Err: err}
	case errors.As(err, &cerr) && c.txTimeout > 0 && isNetTimeout(cerr.Inner):
		// The driver's own socket deadline (set from the transaction
		// timeout) fired on a server that accepted the connection and then
		// stopped answering: that is the deadline, not an unreachable server.
		return &TimeoutError{URI: c.uri, Op: op, After: c.txTimeout + c.acquireTimeout, Err: err}
	case errors.As(err, &cerr):
		return &UnreachableError{URI: c.uri, Op: op, Err: err}
	case errors.As(err, &tok):
		return &AuthError{URI: c.uri, User: c.user, Code: tok.Code, Err: err}
	}
	return &QueryError{Op: op, Err: err}
}

func (*UnreachableError) connectorError() {}
func (*TimeoutError) connectorError()     {}
func (*AuthError) connectorError()        {}
func (*QueryError) connectorError()       {}
func (*IdentifierError) connectorError()  {}
func (*SchemaError) connectorError()      {}
func (*DataError) connectorError()        {}
func (*ArgumentError) connectorError()    {}

// isNetTimeout reports whether err is a network deadline that expired: a
// net.Error that says so, or the driver's read and write timeouts (which
// keep their cause in a field without Unwrap, so only their text shows it).
func isNetTimeout(err error) bool {
	var ne net.Error
	if err == nil {
		return false
	}
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()) || strings.HasPrefix(err.Error(), "Timeout while ")
}
