package job

import (
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// CheckInputs refuses each combination of a release's inputs that cannot
// run with its kind and a message naming the parameters at fault, and
// accepts the rest.
func TestReleaseSpecCheckInputs(t *testing.T) {
	names := map[errkind.Param]string{ParamOut: "--out", ParamWriteProperty: "--write-property", ParamCertificate: "--sensitivity-cert",
		connector.ParamValueProperty: "--value-property"}
	flag := func(p errkind.Param) string {
		if f, ok := names[p]; ok {
			return f
		}
		return "--" + string(p)
	}
	file := ReleaseSpec{Graph: "karate", Out: "rel.json", WriteProperty: "graphcloak_value"}
	onNeo4j := ReleaseSpec{Graph: "neo4j", Neo4j: true, WriteProperty: "graphcloak_value"}
	onNeo4j.Projection.ValueProperty = "raw"
	const ok errkind.Kind = -1
	for _, c := range []struct {
		name     string
		edit     func(*ReleaseSpec)
		base     ReleaseSpec
		values   string
		estimate bool
		want     errkind.Kind
		wantText string
	}{
		{"readings from a file", nil, file, "r.csv", false, ok, ""},
		{"readings from standard input", nil, file, "-", false, ok, ""},
		{"a stored property on Neo4j", nil, onNeo4j, "", false, ok, ""},
		{"a dry run writes no file", func(s *ReleaseSpec) { s.Out, s.DryRun = "", true }, file, "r.csv", false, ok, ""},
		{"an estimate writes no file", func(s *ReleaseSpec) { s.Out = "" }, file, "r.csv", true, ok, ""},
		{"a cache and a time budget", func(s *ReleaseSpec) { s.CachePath, s.TimeBudget = "d2.json", time.Minute }, file, "r.csv", false, ok, ""},

		{"no readings", nil, file, "", false, errkind.Usage, "give exactly one of --values FILE|- (raw readings; they never reach the database) or --value-property P"},
		{"readings and a property", nil, onNeo4j, "r.csv", false, errkind.Usage, "give exactly one of --values"},
		{"a property off Neo4j", func(s *ReleaseSpec) { s.Projection.ValueProperty = "raw" }, file, "", false, errkind.Usage,
			"--value-property reads a property from Neo4j and needs --graph neo4j"},
		{"over the raw readings", func(s *ReleaseSpec) { s.WriteProperty = "raw" }, onNeo4j, "", false, errkind.Usage,
			`--write-property must differ from --value-property "raw"`},
		{"a release file on standard output", func(s *ReleaseSpec) { s.Out = "-" }, file, "r.csv", false, errkind.Usage, "--out - is not supported"},
		{"no release file", func(s *ReleaseSpec) { s.Out = "" }, file, "r.csv", false, errkind.Usage, "--out FILE is required for a graph outside Neo4j"},
		{"a certificate and a time budget", func(s *ReleaseSpec) { s.CertificatePath, s.TimeBudget = "c.json", time.Minute }, file, "r.csv", false,
			errkind.Usage, "give --sensitivity-cert or --time-budget, not both"},
		{"a certificate and a cache", func(s *ReleaseSpec) { s.CertificatePath, s.CachePath = "c.json", "d2.json" }, file, "r.csv", false,
			errkind.Usage, "give --sensitivity-cert (a fixed certificate) or --sensitivity-cache (reused while it verifies), not both"},
		{"a negative time budget", func(s *ReleaseSpec) { s.TimeBudget = -time.Second }, file, "r.csv", false, errkind.BadInput, "--time-budget must be ≥ 0, got -1s"},
	} {
		s := c.base
		if c.edit != nil {
			c.edit(&s)
		}
		err := s.CheckInputs(c.values, c.estimate)
		switch {
		case c.want == ok && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.want == ok:
		case err == nil:
			t.Errorf("%s: accepted, want %v: %s", c.name, c.want, c.wantText)
		case errkind.Of(err) != c.want || !strings.Contains(errkind.Render(err, flag), c.wantText):
			t.Errorf("%s: %v %q, want %v %q", c.name, errkind.Of(err), errkind.Render(err, flag), c.want, c.wantText)
		}
	}
}
