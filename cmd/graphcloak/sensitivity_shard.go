package main

import (
	"io"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/sensitivity"
	"github.com/spf13/cobra"
)

// Sharded Δ2 (docs/sharding.md): sensitivity --shard i/N --save PART
// computes one share of the exact Δ2 and writes a partial certificate;
// sensitivity merge PART... --save CERT checks that the parts are every
// shard of one computation exactly once and writes the certificate one
// process would have written. The --shard flags are checked by
// sensitivity.Request.CheckCombination.

// sensitivityMergeOptions are the flags of "sensitivity merge".
type sensitivityMergeOptions struct {
	save string
}

const sensitivityMergeHelp = `Merge the partial certificates written by sensitivity --shard i/N --save into
the sensitivity certificate one process would have written (docs/sharding.md).

The parts must be every shard 0 … N−1 of one computation exactly once: one graph
fingerprint, τ, α, software version, shard count N and scheme. A missing,
duplicated or foreign part is refused (exit 3) and nothing is written. With a
ledger key every part must carry a MAC that verifies under it, and the
certificate is sealed under it.

Δ2 is the largest of the shards' upper bounds (its edge the maximising pair),
the slack its distance to the largest of their lower bounds; it is exact when
every shard completed and the bracket is within the relative slack 1e-6 — the
same float64s as the single run. The certificate's created time is the latest
part's, so merging the same files twice writes the same bytes.`

func newSensitivityMergeCmd(g *globalOptions) *cobra.Command {
	o := &sensitivityMergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge PART...",
		Short: "Merge the partial certificates of a sharded Δ2 into one certificate",
		Long:  sensitivityMergeHelp,
		Example: `  for i in 0 1 2 3; do graphcloak sensitivity --graph pa:n=3000,m=3 --tau 1 --shard $i/4 --save part-$i.json & done; wait
  graphcloak sensitivity merge part-*.json --save pa.cert.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errkind.Usagef("sensitivity merge needs the partial certificates: PART...")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.save == "" {
				return errkind.Usagef("sensitivity merge needs --save CERT")
			}
			return runSensitivityMerge(g, o, args, g.stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.save, "save", "", "write the merged sensitivity certificate to this JSON file, for release --sensitivity-cert")
	config.AddFlags(fl, "ledger-key")
	return cmd
}

func runSensitivityMerge(g *globalOptions, o *sensitivityMergeOptions, files []string, out io.Writer) error {
	key, err := jobfiles.CertificateMACKey(&g.cfg.Config)
	if err != nil {
		return err
	}
	res, err := sensitivity.MergeCertificates(files, o.save, key)
	if err != nil {
		return err
	}
	if g.output == "json" {
		return printJSON(out, res)
	}
	return textreport.SensitivityMerge(out, res, o.save)
}
