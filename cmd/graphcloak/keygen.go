package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/privacy"
)

// keygenOptions are the flags of "keygen".
type keygenOptions struct {
	out    string
	output string
}

func newKeygenCmd(g *globalOptions) *cobra.Command {
	o := &keygenOptions{}
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Create a 256-bit noise key (the key holder can remove keyed noise)",
		Long: `Write a new 256-bit key from crypto/rand to --out as 64 hex digits, with file
mode 0600. The file is created exclusively: an existing file is never
overwritten. Releases made with --key FILE draw their noise from this key;
whoever holds it can regenerate that noise ("graphcloak unmask") and so see the
true values. Keep it like a password; graphcloak refuses a key file that group
or others can read. The key is never printed.`,
		Example: `  graphcloak keygen --out ~/.config/graphcloak/noise.key`,
		Args:    noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.out == "" {
				return usageErrorf("keygen needs --out FILE")
			}
			if o.out == "-" {
				return usageErrorf("keygen never writes a key to standard output (--out -); name a file")
			}
			o.output = g.output
			return runKeygen(cmd.Context(), o, g.stdout)
		},
	}
	cmd.Flags().StringVar(&o.out, "out", "", "key file to create (mode 0600, must not exist)")
	return cmd
}

func runKeygen(_ context.Context, o *keygenOptions, out io.Writer) error {
	r, err := privacy.CreateKeyFile(o.out)
	if errors.Is(err, fs.ErrExist) {
		return inputErrorf("--out %s already exists; keygen never overwrites a key", o.out)
	}
	if err != nil {
		return err
	}
	if o.output == "json" {
		return printJSON(out, r)
	}
	_, err = fmt.Fprintf(out, "wrote a %d-bit noise key to %s (mode %s)\n", r.Bits, r.Path, r.Mode)
	return err
}
