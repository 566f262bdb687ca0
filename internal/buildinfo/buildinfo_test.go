package buildinfo

import (
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
	if v := Read(); v.SamplerVersion != privacy.SamplerVersion || !strings.HasPrefix(v.String(), "graphcloak ") {
		t.Errorf("this build: %+v", v)
	}
}
