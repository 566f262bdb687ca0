package local

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// The parameters of provisioning that its errors name.
const (
	ParamNodes     errkind.Param = "nodes"
	ParamOutDir    errkind.Param = "out-dir"
	ParamSensorCSV errkind.Param = "sensor-csv"
	ParamMACCSV    errkind.Param = "mac-csv"
)

// ProvisionRequest is the sensors of a local release to provision from a
// master key (docs/local-sampler.md: each sensor's key is HKDF-SHA256 of
// the master key and its node key). At least one output is named.
type ProvisionRequest struct {
	Master privacy.Key
	Nodes  []string
	// OutDir gets one key file per node (NODE.key, mode 0600; node-HEX.key
	// for a node key that is not a safe file name), the sensor's Policy
	// beside it (NODE.policy.json) and its empty odometer
	// (NODE.odometer.json, started at Now). It is created 0700, or must be
	// empty.
	OutDir string
	Policy sensor.Policy
	Now    time.Time
	// SensorCSV gets node,sensorKeyHex (secret); MACCSV node,reportMacKeyHex,
	// the collector's report-MAC keys (ReadMACKeysFile). Both mode 0600.
	SensorCSV, MACCSV string
}

// Provisioned is what Provision wrote; never a key.
type Provisioned struct {
	MasterFingerprint string `json:"masterFingerprint"`
	Nodes             int    `json:"nodes"`
	OutDir            string `json:"outDir,omitempty"`
	SensorCSV         string `json:"sensorCsv,omitempty"`
	MacCSV            string `json:"macCsv,omitempty"`
	// Files are the nodes' key files under OutDir.
	Files []ProvisionedFile `json:"files,omitempty"`
}

// ProvisionedFile is one node's files under Provisioned.OutDir.
type ProvisionedFile struct {
	Node     string `json:"node"`
	Path     string `json:"path"`
	Policy   string `json:"policy"`
	Odometer string `json:"odometer"`
}

// Provision derives each node's sensor key from the master key and
// writes the outputs req names. Every output is checked before any is
// written, and nothing stays written unless everything is.
func Provision(req ProvisionRequest) (_ *Provisioned, err error) {
	// Check every output before writing any.
	for _, p := range []struct {
		param errkind.Param
		path  string
	}{{ParamSensorCSV, req.SensorCSV}, {ParamMACCSV, req.MACCSV}} {
		if p.path == "" {
			continue
		}
		if _, err := os.Lstat(p.path); err == nil {
			return nil, errkind.Inputf("%s %s already exists; keygen never overwrites a key", p.param, p.path)
		}
		if st, err := os.Stat(filepath.Dir(p.path)); err != nil || !st.IsDir() {
			return nil, errkind.Inputf("%s %s: its directory does not exist", p.param, p.path)
		}
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	w := &provisioner{req: req}
	defer func() {
		if err != nil {
			w.undo()
		}
	}()
	r := &Provisioned{MasterFingerprint: req.Master.Fingerprint(), Nodes: len(req.Nodes), OutDir: req.OutDir, SensorCSV: req.SensorCSV, MacCSV: req.MACCSV}
	if req.OutDir != "" {
		if r.Files, err = w.outDir(); err != nil {
			return nil, err
		}
	}
	if err := w.csvs(); err != nil {
		return nil, err
	}
	return r, nil
}

// provisioner writes Provision's files and removes them on a failure.
type provisioner struct {
	req        ProvisionRequest
	written    []string
	createdDir bool
}

func (w *provisioner) undo() {
	for _, p := range w.written {
		os.Remove(p)
	}
	if w.createdDir {
		os.Remove(w.req.OutDir)
	}
}

// outDir writes each node's key, policy and odometer under OutDir.
func (w *provisioner) outDir() ([]ProvisionedFile, error) {
	req := w.req
	var err error
	if w.createdDir, err = prepareOutDir(req.OutDir); err != nil {
		return nil, err
	}
	var files []ProvisionedFile
	names := map[string]string{}
	for _, n := range req.Nodes {
		name := sensorKeyFileName(n)
		if other, dup := names[strings.ToLower(name)]; dup {
			return nil, errkind.Inputf("%s: %q and %q would share the key file %s", ParamNodes, other, n, name)
		}
		names[strings.ToLower(name)] = n
		path := filepath.Join(req.OutDir, name)
		base := strings.TrimSuffix(path, ".key")
		pf, od := base+".policy.json", base+".odometer.json"
		for _, step := range []struct {
			path  string
			write func() error
		}{
			{path, func() error { return privacy.WriteKeyFile(path, privacy.Key(sensor.SensorKey(req.Master, n))) }},
			{pf, func() error { return sensor.WritePolicy(pf, n, req.Policy) }},
			{od, func() error { return sensor.InitOdometer(od, n, req.Now, false) }},
		} {
			if err := step.write(); err != nil {
				return nil, errkind.Inputf("%s: %w", ParamOutDir, err)
			}
			w.written = append(w.written, step.path)
		}
		files = append(files, ProvisionedFile{Node: n, Path: path, Policy: pf, Odometer: od})
	}
	return files, nil
}

// csvs writes the sensor-key and the report-MAC-key CSVs.
func (w *provisioner) csvs() error {
	req := w.req
	for _, c := range []struct {
		path, header string
		key          func(n string) []byte
	}{
		{req.SensorCSV, "sensorKeyHex", func(n string) []byte { k := sensor.SensorKey(req.Master, n); return k[:] }},
		{req.MACCSV, "reportMacKeyHex", func(n string) []byte { return sensor.ReportMACKey(sensor.SensorKey(req.Master, n)) }},
	} {
		if c.path == "" {
			continue
		}
		if err := writeKeysCSV(c.path, c.header, req.Nodes, c.key); err != nil {
			return errkind.Inputf("%s: %w", c.path, err)
		}
		w.written = append(w.written, c.path)
	}
	return nil
}

var safeFileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$`)

// sensorKeyFileName is NODE.key for a node key that is a safe file name,
// node-HEX.key otherwise.
func sensorKeyFileName(node string) string {
	if safeFileName.MatchString(node) && !strings.HasPrefix(node, "node-") {
		return node + ".key"
	}
	return "node-" + hex.EncodeToString([]byte(node)) + ".key"
}

// prepareOutDir creates dir (0700; its parent must exist) or accepts an
// empty existing directory. It reports whether it created dir.
func prepareOutDir(dir string) (bool, error) {
	err := os.Mkdir(dir, 0o700)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return false, errkind.Inputf("%s: %w", ParamOutDir, err)
	}
	entries, rerr := os.ReadDir(dir)
	if rerr != nil {
		return false, errkind.Inputf("%s %s is not a directory", ParamOutDir, dir)
	}
	if len(entries) > 0 {
		return false, errkind.Inputf("%s %s is not empty; keygen never overwrites keys", ParamOutDir, dir)
	}
	return false, nil
}
