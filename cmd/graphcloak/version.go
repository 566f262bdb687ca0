package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/internal/buildinfo"
)

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
	v := buildinfo.Read()
	if output == "json" {
		return printJSON(w, v)
	}
	_, err := fmt.Fprintln(w, v.String())
	return err
}
