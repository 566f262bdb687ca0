package stores

import (
	"errors"

	"github.com/graphcloak/graphcloak/errkind"
)

// Parameters this package's errors name (errkind.Param) besides job's: a
// command shows each under the name its user types (errkind.Render).
const (
	ParamGraph  errkind.Param = "graph"
	ParamValues errkind.Param = "values"
	ParamLedger errkind.Param = "ledger"
	ParamEdges  errkind.Param = "edges"
	// ParamCommunities and ParamResolution are where a simulation's
	// communities come from and the detection's resolution.
	ParamCommunities errkind.Param = "communities"
	ParamResolution  errkind.Param = "resolution"
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
