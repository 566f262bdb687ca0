package job

import (
	"math"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// Where a localisation's released values come from, checked before
// anything is read: a release file, or on a graph in Neo4j a property or
// the record of a release run.

// ParamReleaseFile is the release file a localisation reads its released
// values from; ParamGraph the graph a job reads ("neo4j": the configured
// projection).
const (
	ParamReleaseFile errkind.Param = "release"
	ParamGraph       errkind.Param = "graph"
)

// CheckReleasedSource checks that a localisation's released values come
// from one place — a release file (file), or on Neo4j (neo4j) a property
// (property) or the record of a release run (run) — and that only a
// graph in Neo4j reads them from the database.
func CheckReleasedSource(neo4j bool, file, property, run string) error {
	switch {
	case file != "" && property != "":
		return errkind.Usagef("give either %s FILE or %s P, not both", ParamReleaseFile, ParamReleasedProperty)
	case !neo4j && file == "":
		return errkind.Usagef("%s FILE is required for a graph outside Neo4j", ParamReleaseFile)
	case !neo4j && (property != "" || run != ""):
		return errkind.Usagef("%s and %s need %s neo4j", ParamReleasedProperty, ParamReleaseRun, ParamGraph)
	}
	return nil
}

// ReleasedProperty is the property a localisation reads its released
// values from (CheckReleasedSource's arguments): the one given, or on
// Neo4j with no other source the release's write property
// (writeProperty); "" when they come from a file or a run's record alone.
// Values read from a property need their σ (sigma), unless the release
// run's record gives it.
func ReleasedProperty(neo4j bool, file, property, run string, sigma float64, writeProperty string) (string, error) {
	if neo4j && file == "" && property == "" && run == "" {
		property = writeProperty
	}
	if property == "" {
		return "", nil
	}
	if connector.CheckIdentifier("property", property) != nil {
		return "", errkind.Inputf("%s: %q is not a valid property name", ParamReleasedProperty, property)
	}
	if run == "" && !(sigma > 0 && !math.IsInf(sigma, 0)) {
		return "", errkind.Usagef("released values from a property need their σ: give %s S (> 0) or %s RUNID", ParamSigma, ParamReleaseRun)
	}
	return property, nil
}

// ReadReleased reads the release file at path (privacy.ReadReleaseFile);
// one that cannot be read, or is no release, is bad input named by its
// parameter.
func ReadReleased(path string) (*privacy.Released, error) {
	rel, err := privacy.ReadReleaseFile(path)
	if err != nil {
		return nil, errkind.Inputf("%s: %w", ParamReleaseFile, err)
	}
	return rel, nil
}
