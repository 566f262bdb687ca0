package sensorfiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/sensor"
)

// A sensor's policy is tightened, never loosened, by the request, and a
// value file is read without its value ever reaching an error.
func TestSensorPolicyAndValue(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "n.policy.json")
	pol := sensor.Policy{Alpha: 1, SigmaFloor: 2, MaxEpsilonPerDay: 4, DayDelta: sensor.DefaultDayDelta, MaxReportsPerDay: 24,
		MaxValidity: sensor.DefaultMaxValidity, GraphSHA256: "aa"}
	if err := sensor.WritePolicy(path, "n", pol); err != nil {
		t.Fatal(err)
	}
	r := SensorReportRequest{Policy: path, Node: "n", SigmaFloor: 1}
	if p, err := sensorPolicy(r); err != nil || p.SigmaFloor != 2 {
		t.Errorf("a lower σ floor: %v, %v; want the policy's 2", p.SigmaFloor, err)
	}
	r.SigmaFloor = 3
	if p, err := sensorPolicy(r); err != nil || p.SigmaFloor != 3 {
		t.Errorf("a higher σ floor: %v, %v; want 3", p.SigmaFloor, err)
	}
	for _, c := range []struct {
		floor float64
		graph string
		param errkind.Param
	}{{-1, "", ParamSigmaFloor}, {1, "bb", ParamGraphSHA256}} {
		r := SensorReportRequest{Policy: path, Node: "n", SigmaFloor: c.floor, GraphSHA256: c.graph}
		_, err := sensorPolicy(r)
		if errkind.Of(err) != errkind.BadInput || !strings.Contains(err.Error(), string(c.param)) {
			t.Errorf("%+v: %v, want bad input naming %s", c, err, c.param)
		}
	}

	v := filepath.Join(dir, "v.txt")
	if err := os.WriteFile(v, []byte(" 12.5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := readValueFile(v, nil); err != nil || got != 12.5 {
		t.Errorf("readValueFile = %v, %v; want 12.5", got, err)
	}
	if got, err := readValueFile("-", strings.NewReader("7")); err != nil || got != 7 {
		t.Errorf("readValueFile(-) = %v, %v; want 7", got, err)
	}
	if err := os.WriteFile(v, []byte("secret-4711 x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readValueFile(v, nil); errkind.Of(err) != errkind.BadInput || strings.Contains(err.Error(), "4711") {
		t.Errorf("a value file of no number: %v, want bad input without its contents", err)
	}
	if _, err := readValueFile("-", strings.NewReader(strings.Repeat("1", maxValueBytes+1))); err == nil {
		t.Error("a value file over its limit was read")
	}
}

// Each sensor refusal has the kind of its documented exit code.
func TestSensorErrorKinds(t *testing.T) {
	for _, c := range []struct {
		err  error
		want errkind.Kind
	}{
		{&sensor.PolicyError{Rule: "daily-cap"}, errkind.Budget},
		{fmt.Errorf("x: %w", sensor.ErrAlreadyReported), errkind.Charged},
		{sensor.ErrRestored, errkind.Charged},
		{sensor.ErrClockBehind, errkind.Charged},
		{&sensor.OdometerError{Err: errors.New("disk full")}, errkind.Internal},
		{sensor.ErrExpired, errkind.BadInput},
		{sensor.ErrNodeNotInOrder, errkind.BadInput},
		{sensor.ErrValue, errkind.BadInput},
	} {
		if got := errkind.Of(sensorError(c.err)); got != c.want {
			t.Errorf("%v: kind %v, want %v", c.err, got, c.want)
		}
	}
}
