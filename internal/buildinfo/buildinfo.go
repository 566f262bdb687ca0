// Package buildinfo says which build of graphcloak is running: its module
// version, the commit it was built from and the version of the noise
// sampler it implements.
package buildinfo

import (
	"fmt"
	"runtime/debug"

	"github.com/graphcloak/graphcloak/privacy"
)

// Version is what "graphcloak version" reports and what release files
// and certificates record as the software that made them. The sampler version matters to unmask: a release
// can only be unmasked by a build that implements its sampler.
type Version struct {
	Version        string `json:"version"`          // module version, "(devel)" for a source build
	Commit         string `json:"commit,omitempty"` // vcs.revision, when built from a checkout
	Modified       bool   `json:"modified,omitempty"`
	GoVersion      string `json:"goVersion"`
	SamplerVersion int    `json:"samplerVersion"`
}

// Read is this binary's version, from its build information.
func Read() Version {
	v := Version{Version: "(devel)", SamplerVersion: privacy.SamplerVersion}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.GoVersion = bi.GoVersion
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one-line form: "graphcloak v1.2.3 (commit abc123, sampler 2)".
func (v Version) String() string {
	s := "graphcloak " + v.Version
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if v.Modified {
			c += "+modified"
		}
		s += " (commit " + c + ")"
	}
	return s + fmt.Sprintf(", sampler version %d, %s", v.SamplerVersion, v.GoVersion)
}
