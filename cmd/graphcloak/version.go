package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/privacy"
)

// versionInfo is what "graphcloak version" reports and what release files
// record as toolVersion. The sampler version matters to unmask: a release
// can only be unmasked by a build that implements its sampler.
type versionInfo struct {
	Version        string `json:"version"`          // module version, "(devel)" for a source build
	Commit         string `json:"commit,omitempty"` // vcs.revision, when built from a checkout
	Modified       bool   `json:"modified,omitempty"`
	GoVersion      string `json:"goVersion"`
	SamplerVersion int    `json:"samplerVersion"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: "(devel)", SamplerVersion: privacy.SamplerVersion}
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
func (v versionInfo) String() string {
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

func newVersionCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and noise sampler version",
		Long: `Print graphcloak's module version, the commit it was built from and the
version of the noise sampler. unmask can only regenerate keyed noise drawn by a
sampler version this build implements; release files record the version that
made them (toolVersion, samplerVersion).`,
		Args: usageArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return printVersion(g.stdout, g.output)
		},
	}
}

func printVersion(w io.Writer, output string) error {
	v := buildVersion()
	if output == "json" {
		return printJSON(w, v)
	}
	_, err := fmt.Fprintln(w, v.String())
	return err
}
