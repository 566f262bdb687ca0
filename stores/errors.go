package stores

import (
	"errors"

	"github.com/graphcloak/graphcloak/errkind"
)

// Parameters this package's errors name (errkind.Param) besides job's
// and inputfiles': a command shows each under the name its user types
// (errkind.Render).
const (
	ParamLedger errkind.Param = "ledger"
	// ParamResolution is a detection's resolution.
	ParamResolution errkind.Param = "resolution"
)

// usageError is a bad request (kind usage) unless what it wraps has a
// kind of its own (a connector error reached while reading a graph stays
// unreachable).
type usageError struct{ err error }

func (e usageError) Error() string      { return e.err.Error() }
func (e usageError) Unwrap() error      { return e.err }
func (e usageError) Kind() errkind.Kind { return kindOr(e.err, errkind.Usage) }

func usageErrorf(format string, args ...any) error {
	return usageError{errkind.Errorf(format, args...)}
}

// kindOr is err's kind, or def when err has none.
func kindOr(err error, def errkind.Kind) errkind.Kind {
	if k := errkind.Of(err); k != errkind.Internal {
		return k
	}
	return def
}

// errNotConnected is a read of Neo4j through stores opened without it
// (Options.Neo4j): a caller's mistake.
var errNotConnected = errors.New("stores: not connected to neo4j (opened without Options.Neo4j)")
