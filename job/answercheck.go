package job

import (
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// Parameters a private answer's inputs are named by (AnswerInputs): the
// request for one, the picture of per-node results and the number of
// sources located.
const (
	ParamAnswerRequest errkind.Param = "private-answer"
	ParamPlot          errkind.Param = "plot"
	ParamSources       errkind.Param = "sources"
)

// AnswerInputs are what a private answer is asked to read and write
// beside its spec, checked together before anything is read.
type AnswerInputs struct {
	// Released: released values were named (a file, a property, a run).
	Released bool
	// Values is the raw readings file ("-": standard input);
	// ValueProperty the stored raw property; Neo4j: the graph is the
	// database's.
	Values, ValueProperty string
	Neo4j                 bool
	// PerNode: per-node results were asked for (a file, a picture).
	PerNode bool
	// Sources is the number of sources located.
	Sources int
}

// Check refuses (a usage error) an answer that reads released values,
// has no raw readings or two sources of them, reads a stored property off
// Neo4j, writes per-node results (an answer has none) or locates more
// than one source (it publishes one community).
func (in AnswerInputs) Check() error {
	switch {
	case in.Released:
		return errkind.Usagef("%s reads raw readings (%s or %s), not released values", ParamAnswerRequest, ParamValues, connector.ParamValueProperty)
	case in.Values == "" && in.ValueProperty == "":
		return errkind.Usagef("%s needs the raw readings: %s FILE (or -) or, on %s neo4j, %s P", ParamAnswerRequest, ParamValues, ParamGraph, connector.ParamValueProperty)
	case in.Values != "" && in.ValueProperty != "":
		return errkind.Usagef("give either %s or %s, not both", ParamValues, connector.ParamValueProperty)
	case in.ValueProperty != "" && !in.Neo4j:
		return errkind.Usagef("%s needs %s neo4j", connector.ParamValueProperty, ParamGraph)
	case in.PerNode:
		return errkind.Usagef("%s and %s draw per-node results; a private answer has none (use -o json)", ParamOut, ParamPlot)
	case in.Sources > 1:
		return errkind.Usagef("%s publishes one community: %s must be 1", ParamAnswerRequest, ParamSources)
	}
	return nil
}
