package inputfiles

import "github.com/graphcloak/graphcloak/errkind"

// Parameters this package's errors name (errkind.Param): the raw readings
// file and the edge list.
const (
	ParamValues errkind.Param = "values"
	ParamEdges  errkind.Param = "edges"
)
