package buildinfo

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

func TestVersionString(t *testing.T) {
	for _, c := range []struct {
		v    Version
		want string
	}{
		{Version{Version: "(devel)", GoVersion: "go1.26", SamplerVersion: 2}, "graphcloak (devel), sampler version 2, go1.26"},
		{Version{Version: "v1.2.3", Commit: "0123456789abcdef", Modified: true, GoVersion: "go1.26", SamplerVersion: 2},
			"graphcloak v1.2.3 (commit 0123456789ab+modified), sampler version 2, go1.26"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
	if v := Read(); v.SamplerVersion != privacy.LatestSamplerVersion() || !strings.HasPrefix(v.String(), "graphcloak ") {
		t.Errorf("this build: %+v", v)
	}
}

// The build info lists every mechanism of privacy's table that a release
// draws (a sampler), with its sampler, accounting and whether a sensor
// draws it, and no other; its one-line form (which release files record)
// does not name them.
func TestBuildInfoListsTheMechanismTable(t *testing.T) {
	v := Read()
	var want []Mechanism
	for _, m := range privacy.Mechanisms() {
		if m.Sampler != 0 {
			want = append(want, Mechanism{Name: m.Name, SamplerVersion: m.Sampler, Accounting: m.Accounting, AtSensor: m.AtSensor})
		}
	}
	if len(want) == 0 || !slices.Equal(v.Mechanisms, want) {
		t.Errorf("build info lists %+v, want the table's released rows %+v", v.Mechanisms, want)
	}
	for _, m := range v.Mechanisms {
		if strings.Contains(v.String(), m.Name) {
			t.Errorf("the one-line version %q names %s: release files record it", v.String(), m.Name)
		}
	}
}
