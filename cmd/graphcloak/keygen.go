package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// keygenOptions are the flags of "keygen".
type keygenOptions struct {
	out     string
	signing bool
	// Provisioning sensors from a master key.
	master, nodes, outDir, sensorCSV, macCSV string
	output                                   string
	// policy is what --out-dir provisions beside each key (NODE.policy.json).
	policy      sensor.Policy
	maxValidity time.Duration
	stdin       io.Reader
}

func newKeygenCmd(g *globalOptions) *cobra.Command {
	o := &keygenOptions{}
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Create a noise key, a coordinator signing key, or sensors' keys from a master key",
		Long: `Write a new 256-bit key from crypto/rand to --out as 64 hex digits, with file
mode 0600. The file is created exclusively: an existing file is never
overwritten. Releases made with --key FILE draw their noise from this key;
whoever holds it can regenerate that noise ("graphcloak unmask") and so see the
true values. Keep it like a password; graphcloak refuses a key file that group
or others can read. The key is never printed.

--signing writes a coordinator's Ed25519 signing key instead (--out, 0600, the
hex of its seed) and its public key (--out + ".pub", hex): the coordinator
signs epoch orders with it, sensors are provisioned with the .pub file.

--master KEY --nodes FILE derives each node's sensor key from the master key
(HKDF-SHA256, docs/local-sampler.md) for a local release, in which each sensor
adds its own noise. FILE lists one node key per line ("-": standard input;
blank lines and lines starting with # are skipped). Outputs, at least one:
--out-dir DIR, one key file per node (DIR/NODE.key, mode 0600; DIR is created
0700 and must not exist or be empty; a node key that is not a safe file name
becomes node-HEX.key), and beside each key the sensor's policy
(DIR/NODE.policy.json: --alpha, --sigma-floor, --max-epsilon-per-day,
--day-delta, --max-reports-per-day, --max-validity, --sensitivity-bound,
--graph-sha256; releaseNodes, the number of nodes in FILE, is the least node
count each report is charged for) and its empty odometer (DIR/NODE.odometer.json), which sensor
report needs: no policy or odometer, no report. The default σ floor is the
one a single report charged at √2·α needs to fit the daily cap; --sensor-csv FILE, node,sensorKeyHex (secret: mode
0600, for provisioning); --mac-csv FILE, node,reportMacKeyHex (for the
collector: it can authenticate reports, not remove noise; mode 0600). The
master key's holder can unmask any local release. Nothing is written unless
everything is.`,
		Example: `  graphcloak keygen --out ~/.config/graphcloak/noise.key
  graphcloak keygen --signing --out coord.key
  graphcloak keygen --master noise.key --nodes nodes.txt --out-dir sensors --mac-csv collector-macs.csv -o json`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkKeygen(o); err != nil {
				return err
			}
			o.output = g.output
			o.stdin = cmd.InOrStdin()
			return runKeygen(cmd.Context(), o, g.stdout)
		},
	}
	addKeygenFlags(cmd.Flags(), o)
	return cmd
}

// addKeygenFlags adds keygen's flags: the key files, and the sensors'
// policy --out-dir provisions.
func addKeygenFlags(f *pflag.FlagSet, o *keygenOptions) {
	f.StringVar(&o.out, "out", "", "key file to create (mode 0600, must not exist)")
	f.BoolVar(&o.signing, "signing", false, "create a coordinator Ed25519 signing key (--out) and its public key (--out.pub)")
	f.StringVar(&o.master, "master", "", "master noise key file: derive sensors' keys from it (with --nodes)")
	f.StringVar(&o.nodes, "nodes", "", `file of node keys, one per line ("-": standard input)`)
	f.StringVar(&o.outDir, "out-dir", "", "directory to create with one sensor key file per node (mode 0600)")
	f.StringVar(&o.sensorCSV, "sensor-csv", "", "CSV to create: node,sensorKeyHex (secret, mode 0600)")
	f.StringVar(&o.macCSV, "mac-csv", "", "CSV to create: node,reportMacKeyHex for the collector (mode 0600)")
	f.Float64Var(&o.policy.Alpha, "alpha", 1, "--out-dir: the α each sensor protects (mass of one protected unit × hops); Δ2 is charged at ≥ √2·α")
	f.Float64Var(&o.policy.SensitivityBound, "sensitivity-bound", 0, "--out-dir: a proven upper bound on Δ2 at α, charged instead of √2·α (0: √2·α)")
	f.Float64Var(&o.policy.SigmaFloor, "sigma-floor", 0, "--out-dir: the sensors' σ floor (0: the σ one report charged at √2·α needs under the daily cap)")
	f.Float64Var(&o.policy.MaxEpsilonPerDay, "max-epsilon-per-day", 4, "--out-dir: each sensor's daily cap ε (zCDP, the sensor's UTC calendar day)")
	f.Float64Var(&o.policy.DayDelta, "day-delta", sensor.DefaultDayDelta, "--out-dir: the δ of the daily cap")
	f.IntVar(&o.policy.MaxReportsPerDay, "max-reports-per-day", 24, "--out-dir: each sensor's cap on reports a UTC day (0: the ε cap only)")
	durationVar(f, &o.maxValidity, "max-validity", sensor.DefaultMaxValidity, "--out-dir: the longest order validity window a sensor accepts")
	f.StringVar(&o.policy.GraphSHA256, "graph-sha256", "", "--out-dir: the sensors refuse orders for any graph but this fingerprint's sha256")
}

func checkKeygen(o *keygenOptions) error {
	provision := o.nodes != "" || o.outDir != "" || o.sensorCSV != "" || o.macCSV != ""
	switch {
	case o.master != "" && (o.out != "" || o.signing):
		return errkind.Usagef("keygen --master derives sensors' keys: give --out-dir, --sensor-csv or --mac-csv, not --out or --signing")
	case o.master != "" && o.nodes == "":
		return errkind.Usagef("keygen --master needs --nodes FILE")
	case o.master != "" && o.outDir == "" && o.sensorCSV == "" && o.macCSV == "":
		return errkind.Usagef("keygen --master needs at least one of --out-dir, --sensor-csv, --mac-csv")
	case o.master == "" && provision:
		return errkind.Usagef("--nodes, --out-dir, --sensor-csv and --mac-csv need --master KEY")
	case o.master == "" && o.out == "":
		return errkind.Usagef("keygen needs --out FILE")
	case o.out == "-" || o.outDir == "-" || o.sensorCSV == "-" || o.macCSV == "-":
		return errkind.Usagef("keygen never writes a key to standard output (-); name a file")
	}
	if o.outDir != "" {
		p := &o.policy
		p.MaxValidity = o.maxValidity
		if o.maxValidity < time.Second {
			return errkind.Inputf("--max-validity must be at least 1s, got %v", o.maxValidity)
		}
		*p = p.WithDefaultSigmaFloor()
		if err := p.Check(); err != nil {
			return errkind.Inputf("--alpha, --sigma-floor, --max-epsilon-per-day, --day-delta, --max-reports-per-day: %w", err)
		}
	}
	return nil
}

func runKeygen(_ context.Context, o *keygenOptions, out io.Writer) error {
	switch {
	case o.master != "":
		return runProvision(o, out)
	case o.signing:
		return runSigningKeygen(o, out)
	}
	r, err := privacy.CreateKeyFile(o.out)
	if errors.Is(err, fs.ErrExist) {
		return errkind.Inputf("--out %s already exists; keygen never overwrites a key", o.out)
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

func runSigningKeygen(o *keygenOptions, out io.Writer) error {
	r, err := sensor.CreateSigningKeyFile(o.out)
	if errors.Is(err, fs.ErrExist) {
		return errkind.Inputf("--out %s or %s.pub already exists; keygen never overwrites a key", o.out, o.out)
	}
	if err != nil {
		return errkind.Input(err)
	}
	if o.output == "json" {
		return printJSON(out, r)
	}
	_, err = fmt.Fprintf(out, "wrote an Ed25519 signing key to %s (mode 0600) and its public key %s to %s\n", r.Path, r.PublicKey, r.PublicKeyPath)
	return err
}

// runProvision derives the sensors' keys of --nodes from --master
// (local.Provision) and prints what it wrote.
func runProvision(o *keygenOptions, out io.Writer) error {
	master, err := privacy.LoadKey(o.master)
	if err != nil {
		return errkind.Inputf("--master: %w", err)
	}
	defer clear(master[:])
	nodes, err := inputfiles.ReadNodeList(o.nodes, o.stdin)
	if err != nil {
		return err
	}
	pol := o.policy
	pol.ReleaseNodes = len(nodes) // a split order is charged as the release of every sensor provisioned
	r, err := local.Provision(local.ProvisionRequest{Master: master, Nodes: nodes, OutDir: o.outDir, Policy: pol, Now: time.Now(),
		SensorCSV: o.sensorCSV, MACCSV: o.macCSV})
	if err != nil {
		return err
	}
	if o.output == "json" {
		return printJSON(out, r)
	}
	_, err = fmt.Fprintf(out, "derived %d sensor keys from the master key %s (fingerprint)%s%s%s\n", r.Nodes, r.MasterFingerprint,
		optText("; key files in ", r.OutDir), optText("; sensor keys in ", r.SensorCSV), optText("; report-MAC keys in ", r.MacCSV))
	return err
}

func optText(prefix, v string) string {
	if v == "" {
		return ""
	}
	return prefix + v
}
