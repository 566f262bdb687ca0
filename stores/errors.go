package stores

import (
	"errors"

	"github.com/graphcloak/graphcloak/errkind"
)

// Parameters this package's errors name (errkind.Param) besides job's
// and jobfiles': a command shows each under the name its user types
// (errkind.Render).
const (
	ParamLedger errkind.Param = "ledger"
	// ParamResolution is a detection's resolution.
	ParamResolution errkind.Param = "resolution"
)

// errNotConnected is a read of Neo4j through stores opened without it
// (Options.Neo4j): a caller's mistake.
var errNotConnected = errors.New("stores: not connected to neo4j (opened without Options.Neo4j)")
