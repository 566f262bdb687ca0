package job

import (
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// Parameters of a release's inputs that CheckInputs names besides the
// spec's own: the raw readings file, Δ2's time budget and its cache.
const (
	ParamValues           errkind.Param = "values"
	ParamTimeBudget       errkind.Param = "time-budget"
	ParamSensitivityCache errkind.Param = "sensitivity-cache"
)

// CheckInputs refuses a release whose inputs do not go together, before
// any is read: the readings from exactly one place — a file (values, "-"
// standard input) or the stored property Projection.ValueProperty, only
// in Neo4j and never the property the release writes —, a release file
// that is a file, and that off Neo4j a real release has one (a dry run
// and an estimate, when estimate is set, write none); Δ2 from a given
// certificate, a cache or a time budget ≥ 0, the certificate with
// neither of the others.
func (s *ReleaseSpec) CheckInputs(values string, estimate bool) error {
	valueProp := s.Projection.ValueProperty
	switch {
	case (values == "") == (valueProp == ""):
		return errkind.Usagef("give exactly one of %s FILE|- (raw readings; they never reach the database) or %s P (a raw property already in Neo4j)", ParamValues, connector.ParamValueProperty)
	case valueProp != "" && !s.Neo4j:
		return errkind.Usagef("%s reads a property from Neo4j and needs %s neo4j", connector.ParamValueProperty, ParamGraph)
	case valueProp != "" && valueProp == s.WriteProperty:
		return errkind.Usagef("%s must differ from %s %q (never overwrite the raw readings)", ParamWriteProperty, connector.ParamValueProperty, valueProp)
	case s.Out == "-":
		return errkind.Usagef("%s - is not supported: a release file must be a file (a re-run of its epoch is checked against it)", ParamOut)
	case !s.Neo4j && s.Out == "" && !s.DryRun && !estimate:
		return errkind.Usagef("%s FILE is required for a graph outside Neo4j (the release file)", ParamOut)
	case s.CertificatePath != "" && s.TimeBudget != 0:
		return errkind.Usagef("give %s or %s, not both", ParamCertificate, ParamTimeBudget)
	case s.CertificatePath != "" && s.CachePath != "":
		return errkind.Usagef("give %s (a fixed certificate) or %s (reused while it verifies), not both", ParamCertificate, ParamSensitivityCache)
	case s.TimeBudget < 0:
		return errkind.Inputf("%s must be ≥ 0, got %v", ParamTimeBudget, s.TimeBudget)
	}
	return nil
}
