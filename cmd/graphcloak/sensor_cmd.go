package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// sensorReportOptions are the flags of "sensor report".
type sensorReportOptions struct {
	order, coordinatorKey, key, node, odometer string
	value                                      float64
	valueSet                                   bool
	valueFile                                  string
	sigmaFloor, maxEpsilonPerDay, dayDelta     float64
	graphSHA256                                string
	stdin                                      io.Reader
}

func newSensorCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sensor",
		Short: "Act as one sensor of a local release: check an epoch order, add your own noise, report",
		Long: `A sensor of a local release (docs/local-sampler.md) holds its own raw value and
its own sensor key; it adds keyed discrete Gaussian noise itself, so that no raw
value reaches the coordinator or the collector.`,
	}
	cmd.AddCommand(newSensorReportCmd(g))
	return cmd
}

func newSensorReportCmd(g *globalOptions) *cobra.Command {
	o := &sensorReportOptions{}
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Check an epoch order against this sensor's policy and print its noisy report",
		Long: `Check the epoch order's signature against the coordinator public key this sensor
was provisioned with, its validity window against this machine's clock, that
--node is in its node list, and this sensor's own policy: the noise σ (computed
from the order's grid) is at least --sigma-floor, and the day's privacy loss
stays within --max-epsilon-per-day (zCDP costs ρ of one UTC day add up;
ε_day = ρ + 2√(ρ·ln(1/δ)) at δ = --day-delta). Then draw the keyed noise from
the sensor key, record the epoch in the odometer file (mode 0600, fsynced
before anything is printed; a sensor never reports twice for one epoch) and
print one report: a JSON line with the node, epoch, release id, the noisy value
and a MAC. The raw value never leaves this command. Run again with the same
order and value, it prints the identical report (a retry); with another value
it refuses.

Prefer --value-file to --value: a command line is visible to other users of
the machine. Exit codes: 3 bad order, key or value, node not in the order, σ
below the floor, corrupted odometer; 5 over the daily cap; 7 already reported
for this epoch; 1 the odometer cannot be written.`,
		Example: `  graphcloak sensor report --order epoch.order --coordinator-key coord.key.pub \
    --key sensors/room-12.key --node room-12 --value-file reading.txt \
    --sigma-floor 0.5 --max-epsilon-per-day 4 --odometer room-12.odometer >> reports.jsonl`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.valueSet = cmd.Flags().Changed("value")
			o.stdin = cmd.InOrStdin()
			if err := checkSensorReport(o); err != nil {
				return err
			}
			return runSensorReport(cmd.Context(), o, g.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.order, "order", "", `signed epoch order file ("-": standard input)`)
	f.StringVar(&o.coordinatorKey, "coordinator-key", "", "coordinator public key file this sensor trusts (keygen --signing writes FILE.pub)")
	f.StringVar(&o.key, "key", "", "this sensor's key file (keygen --master … --out-dir, mode 0600)")
	f.StringVar(&o.node, "node", "", "this sensor's node key")
	f.Float64Var(&o.value, "value", 0, "the raw reading (visible in the process list: prefer --value-file)")
	f.StringVar(&o.valueFile, "value-file", "", `file holding the raw reading, one number ("-": standard input)`)
	f.Float64Var(&o.sigmaFloor, "sigma-floor", 0, "refuse orders whose noise σ is below this (0: no floor)")
	f.Float64Var(&o.maxEpsilonPerDay, "max-epsilon-per-day", 0, "refuse a report that takes this UTC day's ε above this (0: no cap)")
	f.Float64Var(&o.dayDelta, "day-delta", sensor.DefaultDayDelta, "the δ at which --max-epsilon-per-day is stated")
	f.StringVar(&o.graphSHA256, "graph-sha256", "", "refuse orders for any graph but this fingerprint's sha256")
	f.StringVar(&o.odometer, "odometer", "", "this sensor's odometer file (created 0600; its directory must exist)")
	return cmd
}

func checkSensorReport(o *sensorReportOptions) error {
	for _, f := range []struct{ name, v string }{{"--order", o.order}, {"--coordinator-key", o.coordinatorKey},
		{"--key", o.key}, {"--node", o.node}, {"--odometer", o.odometer}} {
		if f.v == "" {
			return usageErrorf("sensor report needs %s", f.name)
		}
	}
	switch {
	case o.valueSet == (o.valueFile != ""):
		return usageErrorf("sensor report needs exactly one of --value V and --value-file FILE")
	case o.order == "-" && o.valueFile == "-":
		return usageErrorf("--order - and --value-file - cannot both read standard input")
	case o.odometer == "-" || o.key == "-" || o.coordinatorKey == "-":
		return usageErrorf("--odometer, --key and --coordinator-key name files, not standard input (-)")
	}
	return nil
}

func runSensorReport(_ context.Context, o *sensorReportOptions, out io.Writer) error {
	env, err := readFileOrStdin(o.order, o.stdin, sensor.MaxOrderBytes)
	if err != nil {
		return inputErrorf("--order: %w", err)
	}
	pub, err := sensor.LoadCoordinatorKey(o.coordinatorKey)
	if err != nil {
		return inputErrorf("--coordinator-key: %w", err)
	}
	key, err := privacy.LoadKey(o.key)
	if err != nil {
		return inputErrorf("--key: %w", err)
	}
	value := o.value
	if !o.valueSet {
		if value, err = readValueFile(o.valueFile, o.stdin); err != nil {
			return err
		}
	}
	s := &sensor.Sensor{Coordinator: pub, Node: o.node, Key: sensor.Key(key), Odometer: o.odometer,
		Policy: sensor.Policy{SigmaFloor: o.sigmaFloor, MaxEpsilonPerDay: o.maxEpsilonPerDay, DayDelta: o.dayDelta, GraphSHA256: o.graphSHA256}}
	clear(key[:])
	if err := s.Policy.Check(); err != nil {
		return inputErrorf("--sigma-floor, --max-epsilon-per-day, --day-delta: %w", err)
	}
	rep, err := s.Report(env, value)
	if err != nil {
		return sensorError(err)
	}
	line, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s\n", line)
	return err
}

// readValueFile reads one number, never printing it in an error.
func readValueFile(path string, stdin io.Reader) (float64, error) {
	data, err := readFileOrStdin(path, stdin, 4096)
	if err != nil {
		return 0, inputErrorf("--value-file: %w", err)
	}
	v, err := strconv.ParseFloat(string(bytes.TrimSpace(data)), 64)
	if err != nil {
		return 0, inputErrorf("--value-file %s does not hold one number", path)
	}
	return v, nil
}

func readFileOrStdin(path string, stdin io.Reader, limit int64) ([]byte, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, err
}

// kindError gives a sensor error its kind (package sensor is stdlib-only
// and names no kinds): the exit codes of "sensor report".
type kindError struct {
	kind errkind.Kind
	err  error
}

func (e kindError) Error() string      { return e.err.Error() }
func (e kindError) Unwrap() error      { return e.err }
func (e kindError) Kind() errkind.Kind { return e.kind }

func sensorError(err error) error {
	var pe *sensor.PolicyError
	var oe *sensor.OdometerError
	switch {
	case errors.As(err, &pe) && pe.Rule == "daily-cap":
		return kindError{errkind.Budget, err}
	case errors.Is(err, sensor.ErrAlreadyReported):
		return kindError{errkind.Charged, err}
	case errors.As(err, &oe) && !oe.Corrupt:
		return kindError{errkind.Internal, err}
	case errors.Is(err, sensor.ErrOrder), errors.Is(err, sensor.ErrExpired), errors.Is(err, sensor.ErrNodeNotInOrder),
		errors.Is(err, sensor.ErrPolicy), errors.Is(err, sensor.ErrValue), errors.Is(err, sensor.ErrOdometer):
		return kindError{errkind.BadInput, err}
	}
	return err
}
