package local

import (
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

func testPolicy(t *testing.T) sensor.Policy {
	t.Helper()
	p := sensor.Policy{Alpha: 1, MaxEpsilonPerDay: 4, DayDelta: sensor.DefaultDayDelta, MaxReportsPerDay: 24, MaxValidity: sensor.DefaultMaxValidity}
	p.SigmaFloor = sensor.SigmaFloorFor(math.Sqrt2*p.Alpha, p.MaxEpsilonPerDay, p.DayDelta)
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProvisionRoundTrip: each node's key file holds its HKDF sensor key,
// the report-MAC CSV reads back (ReadMACKeysFile, the collector's reader)
// as each sensor key's report-MAC key, a node key that is not a safe file
// name gets node-HEX.key, and every secret file is mode 0600.
func TestProvisionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var master privacy.Key
	master[0], master[31] = 7, 9
	nodes := []string{"n0", "a/b", "node-x"}
	req := ProvisionRequest{Master: master, Nodes: nodes, OutDir: filepath.Join(dir, "sensors"), Policy: testPolicy(t),
		Now: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), SensorCSV: filepath.Join(dir, "sensors.csv"), MACCSV: filepath.Join(dir, "macs.csv")}
	r, err := Provision(req)
	if err != nil {
		t.Fatal(err)
	}
	if r.Nodes != 3 || len(r.Files) != 3 || r.MasterFingerprint != master.Fingerprint() {
		t.Fatalf("provisioned %+v", r)
	}
	wantName := map[string]string{"n0": "n0.key", "a/b": "node-" + hex.EncodeToString([]byte("a/b")) + ".key", "node-x": "node-" + hex.EncodeToString([]byte("node-x")) + ".key"}
	for _, f := range r.Files {
		if filepath.Base(f.Path) != wantName[f.Node] {
			t.Errorf("%q: key file %s, want %s", f.Node, filepath.Base(f.Path), wantName[f.Node])
		}
		k, err := privacy.LoadKey(f.Path) // refuses a file group or others can read
		if err != nil || k != privacy.Key(sensor.SensorKey(master, f.Node)) {
			t.Errorf("%q: key file %v, want its sensor key", f.Node, err)
		}
		for _, p := range []string{f.Policy, f.Odometer} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%q: %v", f.Node, err)
			}
		}
	}
	macs, err := ReadMACKeysFile(req.MACCSV)
	if err != nil || len(macs) != 3 {
		t.Fatalf("mac csv: %d keys, %v", len(macs), err)
	}
	for _, n := range nodes {
		if hex.EncodeToString(macs[n]) != hex.EncodeToString(sensor.ReportMACKey(sensor.SensorKey(master, n))) {
			t.Errorf("%q: the MAC CSV's key is not its sensor key's report-MAC key", n)
		}
	}
	for _, p := range []string{req.SensorCSV, req.MACCSV} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v", p, err, st.Mode())
		}
	}
}

// TestProvisionWritesNothingOnFailure: an output that exists, a CSV whose
// directory is missing, and two nodes sharing a key file (found after
// other files are written) are refused as bad input naming the parameter,
// and the directory holds afterwards exactly what it held before.
func TestProvisionWritesNothingOnFailure(t *testing.T) {
	for _, c := range []struct {
		name  string
		nodes []string
		setup func(dir string, req *ProvisionRequest)
		param errkind.Param
	}{
		{"mac csv exists", []string{"n0"}, func(dir string, req *ProvisionRequest) {
			os.WriteFile(req.MACCSV, []byte("x"), 0o600)
		}, ParamMACCSV},
		{"sensor csv's directory missing", []string{"n0"}, func(dir string, req *ProvisionRequest) {
			req.SensorCSV = filepath.Join(dir, "nowhere", "sensors.csv")
		}, ParamSensorCSV},
		{"two nodes one key file", []string{"n0", "n1", "N1"}, func(string, *ProvisionRequest) {}, ParamNodes},
		{"out dir not empty", []string{"n0"}, func(dir string, req *ProvisionRequest) {
			os.Mkdir(req.OutDir, 0o700)
			os.WriteFile(filepath.Join(req.OutDir, "other"), nil, 0o600)
		}, ParamOutDir},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var master privacy.Key
			req := ProvisionRequest{Master: master, Nodes: c.nodes, OutDir: filepath.Join(dir, "sensors"), Policy: testPolicy(t),
				SensorCSV: filepath.Join(dir, "sensors.csv"), MACCSV: filepath.Join(dir, "macs.csv")}
			c.setup(dir, &req)
			before := listTree(t, dir)
			_, err := Provision(req)
			var m *errkind.Message
			if errkind.Of(err) != errkind.BadInput || !errors.As(err, &m) || !mentions(m, c.param) {
				t.Fatalf("err %v (kind %v), want bad input naming %s", err, errkind.Of(err), c.param)
			}
			if after := listTree(t, dir); after != before {
				t.Errorf("files after the refusal:\n%s\nbefore:\n%s", after, before)
			}
		})
	}
}

// mentions reports whether m's text renders p.
func mentions(m *errkind.Message, p errkind.Param) bool {
	found := false
	m.RenderText(func(q errkind.Param) string {
		found = found || q == p
		return string(q)
	})
	return found
}

func listTree(t *testing.T, dir string) string {
	t.Helper()
	var s string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		s += rel + "\n"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
