package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/sensor"
)

// An independent sensor written in Python from docs/local-sampler.md alone
// (sensor/testdata/pysensor.py) interoperates with sensor report and
// collect: given the same order, key, policy and odometer it prints the
// byte-identical report line; collect accepts its reports beside the Go
// sensor's; it refuses what sensor report refuses, with the same exit
// codes (σ below the floor 3, a second reading 7).
func TestIndependentPythonSensorInterop(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the independent Python sensor cannot run here (CI has python3)")
	}
	script, _ := filepath.Abs("../../sensor/testdata/pysensor.py")
	r := newLocalRig(t, 4)
	order := r.order(t, "e1", nil)
	pyReport := func(order, node, odometer, value string) (string, int, string) {
		cmd := exec.Command(py, script, "report", "--order", order, "--coordinator-key", r.coord+".pub", "--key", r.files[node],
			"--policy", r.policies[node], "--odometer", odometer, "--node", node, "--value", value)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), code, errb.String()
	}
	goLine := func(node, value string) string {
		out, code, err := runPrivacyCLI(t, "sensor", "report", "--order", order, "--coordinator-key", r.coord+".pub", "--key", r.files[node],
			"--policy", r.policies[node], "--odometer", r.odometers[node], "--node", node, "--value", value)
		if code != 0 {
			t.Fatalf("sensor report %s: exit %d: %v", node, code, err)
		}
		return out
	}
	// The same inputs: one odometer copied for the Python sensor.
	n0 := r.nodes[0]
	pyOd := filepath.Join(r.dir, "py-"+sanitize(n0)+".odometer.json")
	data, _ := os.ReadFile(r.odometers[n0])
	os.WriteFile(pyOd, data, 0o600)
	pyOut, code, msg := pyReport(order, n0, pyOd, "21.375")
	if code != 0 {
		t.Fatalf("pysensor: exit %d: %s", code, msg)
	}
	if g := goLine(n0, "21.375"); g != pyOut {
		t.Errorf("the two sensors' reports differ:\ngo     %spython %s", g, pyOut)
	}
	// collect: the Python sensor's report of node 1 beside the Go sensor's
	// of nodes 0 and 2.
	n1 := r.nodes[1]
	py1, code, msg := pyReport(order, n1, r.odometers[n1], "-3.25")
	if code != 0 {
		t.Fatalf("pysensor %s: exit %d: %s", n1, code, msg)
	}
	reports := filepath.Join(r.dir, "reports.jsonl")
	os.WriteFile(reports, []byte(pyOut+py1+goLine(r.nodes[2], "0.5")), 0o644)
	out, code, err := runPrivacyCLI(t, "collect", "--order", order, "--coordinator-key", r.coord+".pub", "--mac-keys", filepath.Join(r.dir, "macs.csv"),
		"--journal", filepath.Join(r.dir, "journal"), "--reports", reports)
	if code != 0 || strings.Count(out, "accepted") < 3 {
		t.Errorf("collect of the Python and Go reports: exit %d, %v\n%s", code, err, out)
	}
	// Refusals: σ = 2^-60 below the floor, and a second reading.
	tiny := r.order(t, "tiny", func(o *sensor.Order) { o.Sampler.GridExponent, o.Sampler.GridVariance = 60, 1 })
	if _, code, msg := pyReport(tiny, r.nodes[3], r.odometers[r.nodes[3]], "0.123456789"); code != exitBadInput || !strings.Contains(msg, "sigma-floor") {
		t.Errorf("pysensor, σ = 2^-60: exit %d: %s", code, msg)
	}
	if _, code, _ := r.report(t, tiny, r.nodes[3], "0.123456789"); code != exitBadInput {
		t.Errorf("sensor report, σ = 2^-60: exit %d", code)
	}
	if out, code, msg := pyReport(order, n0, pyOd, "22"); code != 0 || out != pyOut {
		t.Errorf("pysensor, the same order with a second reading: exit %d: %s%s, want the recorded %s", code, out, msg, pyOut)
	}
	resigned := r.order(t, "py-resigned", func(o *sensor.Order) { o.Epoch = "e1" })
	if _, code, msg := pyReport(resigned, n0, pyOd, "22"); code != exitChargedEpoch || !strings.Contains(msg, "already-reported") {
		t.Errorf("pysensor, the epoch under another release id: exit %d: %s", code, msg)
	}
}
