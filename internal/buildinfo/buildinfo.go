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
	// Mechanisms are the noise mechanisms this build releases, from
	// privacy's mechanism table (not in String: release files and
	// certificates record that line, and it must not change).
	Mechanisms []Mechanism `json:"mechanisms"`
}

// Mechanism is a row of privacy's mechanism table as the build info
// lists it.
type Mechanism struct {
	Name           string `json:"name"`
	SamplerVersion int    `json:"samplerVersion"`
	Accounting     string `json:"accounting"`
	AtSensor       bool   `json:"atSensor"`
}

// mechanisms lists the table's released rows (a sampler, so unmask can
// regenerate their noise).
func mechanisms() []Mechanism {
	var out []Mechanism
	for _, m := range privacy.Mechanisms() {
		if m.Sampler != 0 {
			out = append(out, Mechanism{Name: m.Name, SamplerVersion: m.Sampler, Accounting: m.Accounting, AtSensor: m.AtSensor})
		}
	}
	return out
}

// Read is this binary's version, from its build information.
func Read() Version {
	v := Version{Version: "(devel)", SamplerVersion: privacy.LatestSamplerVersion(), Mechanisms: mechanisms()}
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
