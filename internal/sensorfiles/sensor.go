package sensorfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// Parameters a sensor's report names in its errors (errkind.Param).
const (
	ParamOrder          errkind.Param = "epoch order"
	ParamCoordinatorKey errkind.Param = "coordinator key"
	ParamSensorKey      errkind.Param = "sensor key"
	ParamPolicy         errkind.Param = "sensor policy"
	ParamValueFile      errkind.Param = "value file"
	ParamSigmaFloor     errkind.Param = "σ floor"
	ParamGraphSHA256    errkind.Param = "graph sha256"
)

// maxValueBytes bounds a value file: one number.
const maxValueBytes = 4096

// SensorReportRequest is a sensor's report from its files: the signed
// order, the coordinator's public key it trusts, its own key, policy and
// odometer, its node and its raw reading.
type SensorReportRequest struct {
	Order          string // "-": Stdin
	CoordinatorKey string
	Key            string
	Policy         string
	Odometer       string
	Node           string
	// Value is the raw reading, unless ValueFile names the file holding
	// it ("-": Stdin); ValueGiven says Value was given (Check: one of
	// the two).
	Value      float64
	ValueFile  string
	ValueGiven bool
	// SigmaFloor and GraphSHA256 tighten the policy (0, "": the policy's).
	SigmaFloor  float64
	GraphSHA256 string
	Stdin       io.Reader
}

// SensorReport reads r's files, checks the order against the sensor's
// policy tightened by r and returns its report (sensor.Sensor.Report: the
// odometer recorded before it returns). The raw value is never in an
// error. A refusal carries the kind of its exit code: over the daily cap
// errkind.Budget, already reported or begun before the restore
// (or a clock behind the odometer's last report) errkind.Charged, an odometer that cannot be written errkind.Internal,
// any other refusal errkind.BadInput.
func SensorReport(r SensorReportRequest) (sensor.Report, error) {
	env, err := readFileOrStdin(r.Order, r.Stdin, sensor.MaxOrderBytes)
	if err != nil {
		return sensor.Report{}, errkind.Inputf("%s: %w", ParamOrder, err)
	}
	pub, err := sensor.LoadCoordinatorKey(r.CoordinatorKey)
	if err != nil {
		return sensor.Report{}, errkind.Inputf("%s: %w", ParamCoordinatorKey, err)
	}
	key, err := privacy.LoadKey(r.Key)
	if err != nil {
		return sensor.Report{}, errkind.Inputf("%s: %w", ParamSensorKey, err)
	}
	defer clear(key[:])
	read := func() (float64, error) { return r.Value, nil }
	if r.ValueFile != "" { // read only for a new report: never for a retry or a refusal
		read = func() (float64, error) { return readValueFile(r.ValueFile, r.Stdin) }
	}
	pol, err := sensorPolicy(r)
	if err != nil {
		return sensor.Report{}, err
	}
	s := &sensor.Sensor{Coordinator: pub, Node: r.Node, Key: sensor.Key(key), Odometer: r.Odometer, Policy: pol}
	clear(key[:])
	rep, err := s.ReportReading(env, read)
	if err != nil {
		return rep, sensorError(err)
	}
	return rep, nil
}

// sensorPolicy reads r's policy and tightens it with r's σ floor and
// graph.
func sensorPolicy(r SensorReportRequest) (sensor.Policy, error) {
	p, err := sensor.LoadPolicy(r.Policy, r.Node)
	if err != nil {
		return p, errkind.Inputf("%s: %w", ParamPolicy, err)
	}
	if !(r.SigmaFloor >= 0) || math.IsInf(r.SigmaFloor, 0) {
		return p, errkind.Inputf("%s must be finite and ≥ 0, got %v", ParamSigmaFloor, r.SigmaFloor)
	}
	p.SigmaFloor = max(p.SigmaFloor, r.SigmaFloor)
	if r.GraphSHA256 != "" {
		if p.GraphSHA256 != "" && p.GraphSHA256 != r.GraphSHA256 {
			return p, errkind.Inputf("%s %s differs from the policy's %s", ParamGraphSHA256, r.GraphSHA256, p.GraphSHA256)
		}
		p.GraphSHA256 = r.GraphSHA256
	}
	if err := p.Check(); err != nil {
		return p, errkind.Inputf("%s: %w", ParamPolicy, err)
	}
	return p, nil
}

// readValueFile reads one number, never printing it in an error.
func readValueFile(path string, stdin io.Reader) (float64, error) {
	data, err := readFileOrStdin(path, stdin, maxValueBytes)
	if err != nil {
		return 0, errkind.Inputf("%s: %w", ParamValueFile, err)
	}
	v, err := strconv.ParseFloat(string(bytes.TrimSpace(data)), 64)
	if err != nil {
		return 0, errkind.Inputf("%s %s does not hold one number", ParamValueFile, path)
	}
	return v, nil
}

// readFileOrStdin reads path ("-": stdin), refusing more than limit bytes.
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

// sensorError is err, a sensor's refusal, with its kind (package
// sensor is stdlib-only and names no kinds).
func sensorError(err error) error {
	var pe *sensor.PolicyError
	var oe *sensor.OdometerError
	switch {
	case errors.As(err, &pe) && pe.Rule == "daily-cap":
		return errkind.Mark(err, errkind.Budget)
	case errors.Is(err, sensor.ErrAlreadyReported), errors.Is(err, sensor.ErrRestored), errors.Is(err, sensor.ErrClockBehind):
		return errkind.Mark(err, errkind.Charged)
	case errors.As(err, &oe) && !oe.Corrupt && !oe.Missing:
		return errkind.Mark(err, errkind.Internal)
	case errors.Is(err, sensor.ErrOrder), errors.Is(err, sensor.ErrExpired), errors.Is(err, sensor.ErrNodeNotInOrder),
		errors.Is(err, sensor.ErrPolicy), errors.Is(err, sensor.ErrNoPolicy), errors.Is(err, sensor.ErrValue), errors.Is(err, sensor.ErrOdometer):
		return errkind.Mark(err, errkind.BadInput)
	}
	return err
}
