package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/sensorfiles"
	"github.com/graphcloak/graphcloak/sensor"
)

func newSensorCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sensor",
		Short: "Act as one sensor of a local release: check an epoch order, add your own noise, report",
		Long: `A sensor of a local release (docs/local-sampler.md) holds its own raw value and
its own sensor key; it adds keyed discrete Gaussian noise itself, so that no raw
value reaches the coordinator or the collector.`,
	}
	cmd.AddCommand(newSensorReportCmd(g), newSensorInitCmd(g))
	return cmd
}

func newSensorReportCmd(g *globalOptions) *cobra.Command {
	o := &sensorfiles.SensorReportRequest{} // the flags of "sensor report"
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Check an epoch order against this sensor's policy and print its noisy report",
		Long: `Check the epoch order's signature against the coordinator public key this sensor
was provisioned with, its validity window against this machine's clock, that
--node is in its node list, and this sensor's own policy (--policy, the file
keygen --master … --out-dir provisions; no policy, no report): the window is
no longer than its maxValiditySeconds, the noise σ (computed from the order's
grid) is at least its σ floor, and the day's privacy loss stays within its
daily cap. Each report is charged ρ = (Δ + 2^-k·√n)²/(2σ²), n the whole release's
node count (the largest of the order's list, its graph's and the policy's
releaseNodes), at Δ = the larger of
the order's Δ2 and the policy's own bound (√2·α, or its sensitivityBound), so
an order that understates Δ2 cannot drain the sensor; the costs of one UTC
calendar day (the sensor's clock) add up, ε_day = ρ + 2√(ρ·ln(1/δ)). Then draw
the keyed noise from the sensor key, record the epoch in the odometer (the
file provisioned with the key: a missing one is refused; fsynced before
anything is printed; a sensor never reports twice for one epoch) and print one
report: a JSON line with the node, epoch, release id, the noisy value and a
MAC. The raw value never leaves this command. Run again with the same order file
(byte for byte), it prints the recorded report again without reading the value (a
retry); any other order reusing its release id, scope or epoch is refused (exit 7),
as is a clock before the odometer's last report.
--sigma-floor and --graph-sha256 can only tighten the policy file.

Prefer --value-file to --value: a command line is visible to other users of
the machine. Exit codes: 2 usage (no --policy); 3 bad order, key, policy or
value, node not in the order, window too long, σ below the floor, missing or
corrupted odometer; 5 over the daily cap; 7 already reported for this epoch,
an order begun before the odometer's restore, or a clock behind the odometer; 1 the odometer cannot be
written.`,
		Example: `  graphcloak sensor report --order epoch.order --coordinator-key coord.key.pub \
    --key sensors/room-12.key --policy sensors/room-12.policy.json \
    --odometer sensors/room-12.odometer.json --node room-12 --value-file reading.txt >> reports.jsonl`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.ValueGiven = cmd.Flags().Changed("value")
			o.Stdin = cmd.InOrStdin()
			if err := o.Check(); err != nil {
				return err
			}
			return runSensorReport(cmd.Context(), o, g.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Order, "order", "", `signed epoch order file ("-": standard input)`)
	f.StringVar(&o.CoordinatorKey, "coordinator-key", "", "coordinator public key file this sensor trusts (keygen --signing writes FILE.pub)")
	f.StringVar(&o.Key, "key", "", "this sensor's key file (keygen --master … --out-dir, mode 0600)")
	f.StringVar(&o.Node, "node", "", "this sensor's node key")
	f.Float64Var(&o.Value, "value", 0, "the raw reading (visible in the process list: prefer --value-file)")
	f.StringVar(&o.ValueFile, "value-file", "", `file holding the raw reading, one number ("-": standard input)`)
	f.StringVar(&o.Policy, "policy", "", "this sensor's policy file (keygen --master … --out-dir writes DIR/NODE.policy.json); required")
	f.Float64Var(&o.SigmaFloor, "sigma-floor", 0, "raise the policy's σ floor to this (0: the policy's)")
	f.StringVar(&o.GraphSHA256, "graph-sha256", "", "refuse orders for any graph but this fingerprint's sha256 (must agree with the policy's)")
	f.StringVar(&o.Odometer, "odometer", "", "this sensor's odometer file, provisioned with its key (sensor init creates one)")
	return cmd
}

// runSensorReport prints the sensor's report (sensorfiles.SensorReport)
// as one JSON line.
func runSensorReport(_ context.Context, req *sensorfiles.SensorReportRequest, out io.Writer) error {
	rep, err := sensorfiles.SensorReport(*req)
	if err != nil {
		return err
	}
	line, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s\n", line)
	return err
}

// sensorInitOptions are the flags of "sensor init".
type sensorInitOptions struct {
	node, odometer string
	restored       bool
}

func newSensorInitCmd(g *globalOptions) *cobra.Command {
	o := &sensorInitOptions{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create a sensor's odometer, or set its restore barrier after a loss or a restore from a backup",
		Long: `Create the odometer of --node at --odometer (mode 0600, fsynced, never over an
existing file). keygen --master … --out-dir creates one per node beside its key;
sensor report refuses to run without one (a lost odometer is not an unused
sensor).

--restored is what to run after an odometer was restored from a backup, or
lost: it keeps the entries of an existing file (or creates one) and sets its
restore barrier to now. From then on the sensor refuses every order whose
window began before the barrier (any order it may have answered after the
backup was taken: it answered it at a time ≥ the order's notBefore), and
counts the barrier's UTC day as spent in full (that day's spending is
unknown): it reports again from the next UTC day. Exit codes: 3 an odometer
already there (without --restored), of another node, or corrupted.`,
		Example: `  graphcloak sensor init --node room-12 --odometer sensors/room-12.odometer.json
  graphcloak sensor init --node room-12 --odometer sensors/room-12.odometer.json --restored`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.node == "" || o.odometer == "" || o.odometer == "-" {
				return errkind.Usagef("sensor init needs --node and --odometer FILE")
			}
			if err := sensor.InitOdometer(o.odometer, o.node, time.Now(), o.restored); err != nil {
				return errkind.Input(err)
			}
			what := "created the odometer"
			if o.restored {
				what = "set the restore barrier of the odometer"
			}
			_, err := fmt.Fprintf(g.stdout, "%s %s of node %q\n", what, o.odometer, o.node)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.node, "node", "", "this sensor's node key")
	f.StringVar(&o.odometer, "odometer", "", "the odometer file to create")
	f.BoolVar(&o.restored, "restored", false, "after a restore from a backup or a loss: set the restore barrier to now")
	return cmd
}
