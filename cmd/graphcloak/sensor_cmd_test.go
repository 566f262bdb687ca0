package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/graphcloak/graphcloak/local"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// runCLIIn runs the command with stdin.
func runCLIIn(t *testing.T, stdin string, args ...string) (string, int, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), exitCode(err), err
}

// localRig provisions a master key, n sensors and a coordinator key with
// the commands themselves.
type localRig struct {
	dir, master, coord string
	nodes              []string
	files              map[string]string // node → sensor key file
	policies           map[string]string // node → policy file
	odometers          map[string]string // node → odometer file
}

func newLocalRig(t *testing.T, n int) *localRig {
	t.Helper()
	isolateConfig(t)
	r := &localRig{dir: t.TempDir(), files: map[string]string{}, policies: map[string]string{}, odometers: map[string]string{}}
	r.master, r.coord = filepath.Join(r.dir, "noise.key"), filepath.Join(r.dir, "coord.key")
	for i := 0; i < n; i++ {
		r.nodes = append(r.nodes, fmt.Sprintf("room-%d", i))
	}
	r.nodes = append(r.nodes, "hall/west wing") // not a safe file name
	nodesFile := filepath.Join(r.dir, "nodes.txt")
	os.WriteFile(nodesFile, []byte("# rooms\n"+strings.Join(r.nodes, "\n")+"\n\n"), 0o644)
	if _, code, err := runPrivacyCLI(t, "keygen", "--out", r.master); code != 0 {
		t.Fatal(err)
	}
	out, code, err := runPrivacyCLI(t, "keygen", "--master", r.master, "--nodes", nodesFile, "--out-dir", filepath.Join(r.dir, "sensors"),
		"--sensor-csv", filepath.Join(r.dir, "sensors.csv"), "--mac-csv", filepath.Join(r.dir, "macs.csv"), "--max-epsilon-per-day", "100", "-o", "json")
	if code != 0 {
		t.Fatal(err)
	}
	var p local.Provisioned
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.Nodes != len(r.nodes) || len(p.Files) != len(r.nodes) {
		t.Fatalf("keygen --master output %s (%v)", out, err)
	}
	for _, f := range p.Files {
		r.files[f.Node], r.policies[f.Node], r.odometers[f.Node] = f.Path, f.Policy, f.Odometer
	}
	if _, code, err := runPrivacyCLI(t, "keygen", "--signing", "--out", r.coord, "-o", "json"); code != 0 {
		t.Fatal(err)
	}
	return r
}

// order signs an order for the rig's nodes, valid around now.
func (r *localRig) order(t *testing.T, epoch string, mutate func(*sensor.Order)) string {
	t.Helper()
	cal, err := privacy.CalibrateRelease(0.5, 1, 1e-5, len(r.nodes), privacy.MechanismDefault)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := sensor.LoadSigningKey(r.coord)
	if err != nil {
		t.Fatal(err)
	}
	master, _ := privacy.LoadKey(r.master)
	now := time.Now().UTC().Truncate(time.Second)
	o := sensor.Order{Version: 1, Kind: sensor.OrderKind, Graph: sensor.OrderGraph{NodeCount: len(r.nodes), SHA256: strings.Repeat("0", 64)},
		Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-5, Sensitivity: 0.5, EffectiveSensitivity: cal.EffectiveSensitivity, Rho: cal.Rho,
		Sampler:   sensor.Sampler{Version: 3, GridExponent: cal.GridExponent, GridVariance: cal.GridVariance, Sigma: cal.Sigma},
		ReleaseID: privacy.NewReleaseID(), Scope: "building", Epoch: epoch, NotBefore: now.Add(-time.Minute), NotAfter: now.Add(time.Hour),
		Nodes: r.nodes, CoordinatorKey: hex.EncodeToString(priv.Public().(ed25519.PublicKey)), KeyFingerprint: master.Fingerprint()}
	if mutate != nil {
		mutate(&o)
	}
	env, err := sensor.SignOrder(priv, o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.dir, epoch+".order")
	os.WriteFile(path, env, 0o644)
	return path
}

func (r *localRig) report(t *testing.T, order, node string, value string, extra ...string) (sensor.Report, int, error) {
	t.Helper()
	vf := filepath.Join(r.dir, "value.txt")
	os.WriteFile(vf, []byte(value+"\n"), 0o600)
	args := append([]string{"sensor", "report", "--order", order, "--coordinator-key", r.coord + ".pub", "--key", r.files[node],
		"--node", node, "--value-file", vf, "--policy", r.policies[node], "--odometer", r.odometers[node]}, extra...)
	out, code, err := runPrivacyCLI(t, args...)
	var rep sensor.Report
	if code == 0 {
		if strings.Count(out, "\n") != 1 {
			t.Fatalf("sensor report printed %q, want one line", out)
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
	}
	return rep, code, err
}

func sanitize(s string) string { return strings.NewReplacer("/", "_", " ", "_").Replace(s) }

// The provisioning outputs hold exactly the derived keys, mode 0600; a
// second run refuses and writes nothing.
func TestKeygenProvision(t *testing.T) {
	r := newLocalRig(t, 5)
	master, _ := privacy.LoadKey(r.master)
	for _, n := range r.nodes {
		k, err := privacy.LoadKey(r.files[n]) // refuses anything but 0600
		if err != nil || [32]byte(k) != sensor.SensorKey(master, n) {
			t.Fatalf("%s: key file %s: %v", n, r.files[n], err)
		}
	}
	if got := filepath.Base(r.files["hall/west wing"]); got != "node-"+hex.EncodeToString([]byte("hall/west wing"))+".key" {
		t.Errorf("unsafe node key file %s", got)
	}
	for name, want := range map[string]func(string) string{
		"sensors.csv": func(n string) string { k := sensor.SensorKey(master, n); return hex.EncodeToString(k[:]) },
		"macs.csv":    func(n string) string { return hex.EncodeToString(sensor.ReportMACKey(sensor.SensorKey(master, n))) },
	} {
		path := filepath.Join(r.dir, name)
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", name, st.Mode().Perm())
		}
		f, _ := os.Open(path)
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(rows) != len(r.nodes)+1 {
			t.Fatalf("%s: %d rows, %v", name, len(rows), err)
		}
		for i, n := range r.nodes {
			if rows[i+1][0] != n || rows[i+1][1] != want(n) {
				t.Errorf("%s row %d: %v", name, i+1, rows[i+1])
			}
		}
	}
	// The MAC CSV does not hold the sensor keys.
	macs, _ := os.ReadFile(filepath.Join(r.dir, "macs.csv"))
	k := sensor.SensorKey(master, r.nodes[0])
	if bytes.Contains(macs, []byte(hex.EncodeToString(k[:]))) {
		t.Error("the collector's CSV holds a sensor key")
	}
	// Refusals write nothing.
	nodesFile := filepath.Join(r.dir, "nodes.txt")
	fresh := filepath.Join(r.dir, "fresh")
	for name, c := range map[string]struct {
		args []string
		code int
	}{
		"existing mac csv": {[]string{"--master", r.master, "--nodes", nodesFile, "--out-dir", fresh, "--mac-csv", filepath.Join(r.dir, "macs.csv")}, exitBadInput},
		"non-empty dir":    {[]string{"--master", r.master, "--nodes", nodesFile, "--out-dir", filepath.Join(r.dir, "sensors")}, exitBadInput},
		"no outputs":       {[]string{"--master", r.master, "--nodes", nodesFile}, exitUsage},
		"no nodes":         {[]string{"--master", r.master, "--out-dir", fresh}, exitUsage},
		"nodes w/o master": {[]string{"--nodes", nodesFile, "--out-dir", fresh}, exitUsage},
		"stdout":           {[]string{"--master", r.master, "--nodes", nodesFile, "--sensor-csv", "-"}, exitUsage},
		"missing master":   {[]string{"--master", filepath.Join(r.dir, "nope"), "--nodes", nodesFile, "--out-dir", fresh}, exitBadInput},
	} {
		if _, code, err := runPrivacyCLI(t, append([]string{"keygen"}, c.args...)...); code != c.code {
			t.Errorf("%s: exit %d (%v), want %d", name, code, err, c.code)
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Errorf("%s: created %s", name, fresh)
		}
	}
	dup := filepath.Join(r.dir, "dup.txt")
	os.WriteFile(dup, []byte("a\nb\na\n"), 0o644)
	if _, code, err := runPrivacyCLI(t, "keygen", "--master", r.master, "--nodes", dup, "--out-dir", fresh); code != exitBadInput || !strings.Contains(err.Error(), `"a" on lines 1 and 3`) {
		t.Errorf("duplicate node: exit %d, %v", code, err)
	}
	// From standard input.
	out, code, err := runCLIIn(t, "x\ny\n", "keygen", "--master", r.master, "--nodes", "-", "--out-dir", fresh, "-o", "json")
	if code != 0 || !strings.Contains(out, `"nodes": 2`) || !strings.Contains(out, master.Fingerprint()) {
		t.Errorf("--nodes -: exit %d, %v, %s", code, err, out)
	}
}

func TestKeygenSigning(t *testing.T) {
	isolateConfig(t)
	path := filepath.Join(t.TempDir(), "coord.key")
	out, code, err := runPrivacyCLI(t, "keygen", "--signing", "--out", path, "-o", "json")
	if code != 0 {
		t.Fatal(err)
	}
	var r sensor.SigningKeyFile
	json.Unmarshal([]byte(out), &r)
	priv, err := sensor.LoadSigningKey(path)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := sensor.LoadCoordinatorKey(path + ".pub")
	if err != nil || !pub.Equal(priv.Public()) || r.PublicKey != hex.EncodeToString(pub) {
		t.Fatalf("public key file %v, output %s", err, out)
	}
	seed, _ := os.ReadFile(path)
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 || strings.Contains(out, strings.TrimSpace(string(seed))) {
		t.Error("signing key mode or printed")
	}
	if _, code, _ := runPrivacyCLI(t, "keygen", "--signing", "--out", path); code != exitBadInput {
		t.Errorf("overwrite: exit %d", code)
	}
	os.Chmod(path, 0o644)
	if _, err := sensor.LoadSigningKey(path); err == nil {
		t.Error("a 0644 signing key loaded")
	}
}

// Reports of every sensor, assembled into a release file as the collector
// does (docs: local-protocol Decisions), unmask with the master key to
// round(y·2^k)·2^-k exactly.
func TestSensorReportsUnmask(t *testing.T) {
	r := newLocalRig(t, 8)
	order := r.order(t, "e1", nil)
	env, _ := os.ReadFile(order)
	pub, _ := sensor.LoadCoordinatorKey(r.coord + ".pub")
	o, err := sensor.VerifyOrder(pub, env)
	if err != nil {
		t.Fatal(err)
	}
	master, _ := privacy.LoadKey(r.master)
	rel := &privacy.Released{Meta: privacy.ReleaseMeta{Sigma: o.Sampler.Sigma, Rho: o.Rho, Sensitivity: o.Sensitivity,
		EffectiveSensitivity: o.EffectiveSensitivity, Epsilon: o.Epsilon, Delta: o.Delta, Mechanism: "discrete", Accounting: privacy.AccountingCKS20,
		Epoch: o.Epoch, Scope: o.Scope, ReleaseID: o.ReleaseID, SamplerVersion: 3, GridExponent: o.Sampler.GridExponent,
		GridVariance: o.Sampler.GridVariance, Keyed: true, KeyFingerprint: o.KeyFingerprint}}
	truth := map[string]float64{}
	for i, n := range r.nodes {
		if i == 3 {
			continue // a sensor that did not report
		}
		y := 18 + 0.731*float64(i) + 1e-7*float64(i*i)
		truth[n] = y
		rep, code, err := r.report(t, order, n, fmt.Sprint(y), "--sigma-floor", "0.01")
		if code != 0 {
			t.Fatalf("%s: exit %d: %v", n, code, err)
		}
		if err := rep.Verify(sensor.ReportMACKey(sensor.SensorKey(master, n)), o.Sampler.GridExponent); err != nil {
			t.Fatal(err)
		}
		rel.Keys, rel.Grid, rel.Values = append(rel.Keys, n), append(rel.Grid, rep.Grid), append(rel.Values, rep.Value)
	}
	rel.Meta.N = len(rel.Keys)
	relPath := filepath.Join(r.dir, "local-release.json")
	if err := privacy.WriteReleaseFile(relPath, rel); err != nil {
		t.Fatal(err)
	}
	out, code, err := runPrivacyCLI(t, "unmask", "--key", r.master, "--release", relPath, "-o", "json")
	if code != 0 {
		t.Fatal(err)
	}
	var u privacy.UnmaskReport
	if err := json.Unmarshal([]byte(out), &u); err != nil || len(u.Rows) != len(truth) {
		t.Fatalf("unmask: %v %s", err, out)
	}
	k := o.Sampler.GridExponent
	for _, row := range u.Rows {
		if want := math.Ldexp(math.Round(math.Ldexp(truth[row.Key], k)), -k); row.Value != want {
			t.Errorf("%s: unmasked %v, want round(y·2^k)·2^-k = %v", row.Key, row.Value, want)
		}
	}
	// Another master key is refused by the order's fingerprint.
	other := filepath.Join(r.dir, "other.key")
	runPrivacyCLI(t, "keygen", "--out", other)
	if _, code, _ := runPrivacyCLI(t, "unmask", "--key", other, "--release", relPath); code != exitBadInput {
		t.Errorf("unmask with another key: exit %d", code)
	}
}

// keygen --out-dir provisions each sensor's policy (the default σ floor:
// one report charged at √2·α fits the daily cap ε = 4) and its empty
// odometer; a sensor run with them never reports with σ below the floor:
// an order with σ = 2^-60 (which would reveal the reading's float64) is
// refused, exit 3.
func TestSensorDefaultsRefuseTinySigma(t *testing.T) {
	isolateConfig(t)
	r := &localRig{dir: t.TempDir(), files: map[string]string{}, policies: map[string]string{}, odometers: map[string]string{}, nodes: []string{"a", "b"}}
	r.master, r.coord = filepath.Join(r.dir, "noise.key"), filepath.Join(r.dir, "coord.key")
	nodes := filepath.Join(r.dir, "nodes.txt")
	os.WriteFile(nodes, []byte("a\nb\n"), 0o644)
	runPrivacyCLI(t, "keygen", "--out", r.master)
	runPrivacyCLI(t, "keygen", "--signing", "--out", r.coord)
	out, code, err := runPrivacyCLI(t, "keygen", "--master", r.master, "--nodes", nodes, "--out-dir", filepath.Join(r.dir, "s"), "-o", "json")
	if code != 0 {
		t.Fatal(err)
	}
	var p local.Provisioned
	json.Unmarshal([]byte(out), &p)
	for _, f := range p.Files {
		r.files[f.Node], r.policies[f.Node], r.odometers[f.Node] = f.Path, f.Policy, f.Odometer
	}
	pol, err := sensor.LoadPolicy(r.policies["a"], "a")
	if err != nil || pol.SigmaFloor != sensor.SigmaFloorFor(math.Sqrt2, 4, 0) || pol.Alpha != 1 || pol.MaxReportsPerDay != 24 {
		t.Fatalf("provisioned policy %+v, %v", pol, err)
	}
	tiny := r.order(t, "tiny", func(o *sensor.Order) { o.Sampler.GridExponent, o.Sampler.GridVariance = 60, 1 })
	_, code, err = r.report(t, tiny, "a", "0.123456789")
	if code != exitBadInput || !strings.Contains(fmt.Sprint(err), "below the sensor's floor") {
		t.Errorf("σ = 2^-60 with the provisioned policy: exit %d, %v; want 3, below the floor", code, err)
	}
	// At the floor itself the cap admits one report charged at √2·α.
	atFloor := r.order(t, "floor", func(o *sensor.Order) {
		o.Sampler.GridExponent = 20
		s := math.Ldexp(pol.SigmaFloor, 20) * 1.0001
		o.Sampler.GridVariance = uint64(math.Ceil(s * s))
	})
	if _, code, err := r.report(t, atFloor, "a", "0.5"); code != 0 {
		t.Errorf("an order just above the floor: exit %d, %v", code, err)
	}
}

// Hostile inputs to sensor report: each a clear error and its exit code;
// none prints the raw value.
func TestSensorReportRefuses(t *testing.T) {
	r := newLocalRig(t, 3)
	good := r.order(t, "e1", nil)
	n := r.nodes[0]
	const secret = "23.456789"
	check := func(name string, code, want int, err error, words string) {
		t.Helper()
		if code != want || err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("%s: exit %d (%v), want %d and %q", name, code, err, want, words)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error prints the raw value: %v", name, err)
		}
	}
	// Another coordinator's order, and a forged one (a tampered byte).
	mallory := filepath.Join(r.dir, "mallory.key")
	runPrivacyCLI(t, "keygen", "--signing", "--out", mallory)
	_, code, err := r.report(t, good, n, secret, "--coordinator-key", mallory+".pub")
	check("other coordinator key", code, exitBadInput, err, "does not verify under the provisioned coordinator key")
	env, _ := os.ReadFile(good)
	forged := filepath.Join(r.dir, "forged.order")
	os.WriteFile(forged, bytes.Replace(env, []byte(`"epsilon":1`), []byte(`"epsilon":2`), 1), 0o644)
	_, code, err = r.report(t, forged, n, secret)
	check("forged order", code, exitBadInput, err, "does not verify")
	malformed := filepath.Join(r.dir, "malformed.order")
	os.WriteFile(malformed, []byte(`{"order":`), 0o644)
	_, code, err = r.report(t, malformed, n, secret)
	check("malformed order", code, exitBadInput, err, "is not an order envelope")
	expired := r.order(t, "e-expired", func(o *sensor.Order) {
		o.NotBefore, o.NotAfter = o.NotBefore.Add(-3*time.Hour), o.NotBefore.Add(-2*time.Hour)
	})
	_, code, err = r.report(t, expired, n, secret)
	check("expired order", code, exitBadInput, err, "order valid from")
	otherGraph := r.order(t, "e-graph", func(o *sensor.Order) { o.Graph.SHA256 = strings.Repeat("f", 64) })
	_, code, err = r.report(t, otherGraph, n, secret, "--graph-sha256", strings.Repeat("0", 64))
	check("other graph", code, exitBadInput, err, "the order is for graph")
	_, code, err = r.report(t, good, n, secret, "--sigma-floor", "1e6")
	check("σ below floor", code, exitBadInput, err, "below the sensor's floor")
	tight := filepath.Join(r.dir, "tight.policy")
	if err := sensor.WritePolicy(tight, n, sensor.Policy{Alpha: 1, SigmaFloor: 0.1, MaxEpsilonPerDay: 0.001}); err != nil {
		t.Fatal(err)
	}
	_, code, err = r.report(t, good, n, secret, "--policy", tight)
	check("over the daily cap", code, exitBudgetExhausted, err, "above the sensor's cap")
	r.files["intruder"], r.policies["intruder"], r.odometers["intruder"] = r.files[n], filepath.Join(r.dir, "i.policy"), filepath.Join(r.dir, "i.odometer")
	if err := sensor.WritePolicy(r.policies["intruder"], "intruder", sensor.Policy{Alpha: 1, SigmaFloor: 0.1, MaxEpsilonPerDay: 100}); err != nil {
		t.Fatal(err)
	}
	sensor.InitOdometer(r.odometers["intruder"], "intruder", time.Now(), false)
	_, code, err = r.report(t, good, "intruder", secret)
	check("node not in order", code, exitBadInput, err, "not in the order's node list")
	_, code, err = r.report(t, good, n, "NaN")
	check("NaN value", code, exitBadInput, err, "not finite")
	_, code, err = r.report(t, good, n, "twenty")
	check("not a number", code, exitBadInput, err, "does not hold one number")
	// One report per epoch: the same order file re-prints the recorded
	// report whatever the value now is; another order of the epoch is
	// refused.
	first, code, err := r.report(t, good, n, secret)
	if code != 0 {
		t.Fatal(err)
	}
	again, code, _ := r.report(t, good, n, secret)
	if code != 0 || again != first {
		t.Errorf("retry: exit %d, %+v, want %+v", code, again, first)
	}
	again, code, _ = r.report(t, good, n, "23.5")
	if code != 0 || again != first {
		t.Errorf("the same order, another value: exit %d, %+v, want the recorded %+v", code, again, first)
	}
	if again, code, _ = r.report(t, good, n, "twenty"); code != 0 || again != first { // the value file is not read
		t.Errorf("the same order, an unreadable value: exit %d, %+v, want the recorded %+v", code, again, first)
	}
	resigned := r.order(t, "e1-resigned", func(o *sensor.Order) { o.Epoch = "e1" })
	_, code, err = r.report(t, resigned, n, secret)
	check("the epoch under another release id", code, exitChargedEpoch, err, "already reported")
	// Odometer faults.
	od := r.odometers[r.nodes[1]]
	os.WriteFile(od, []byte("{not json"), 0o600)
	_, code, err = r.report(t, good, r.nodes[1], secret)
	check("corrupted odometer", code, exitBadInput, err, "is corrupted")
	_, code, err = r.report(t, good, r.nodes[2], secret, "--odometer", filepath.Join(r.dir, "missing", "o"))
	// A path no one can use is bad input, before anything (paths.go).
	check("unwritable odometer", code, exitBadInput, err, "does not exist")
	// A deleted odometer is refused, not a fresh sensor's; sensor init
	// --restored sets the barrier, and the order begun before it stays
	// refused (exit 7).
	os.Remove(r.odometers[n])
	_, code, err = r.report(t, good, n, "23.5")
	check("deleted odometer", code, exitBadInput, err, "does not exist")
	if _, code, err := runPrivacyCLI(t, "sensor", "init", "--node", n, "--odometer", r.odometers[n], "--restored"); code != 0 {
		t.Fatal(err)
	}
	_, code, err = r.report(t, good, n, "23.5")
	check("order begun before the restore", code, exitChargedEpoch, err, "before the odometer was restored")
	if _, code, _ := runPrivacyCLI(t, "sensor", "init", "--node", n, "--odometer", r.odometers[n]); code != exitBadInput {
		t.Errorf("sensor init over an odometer: exit %d, want 3", code)
	}
	// Usage.
	for name, args := range map[string][]string{
		"no value":     {"sensor", "report", "--order", good, "--coordinator-key", r.coord + ".pub", "--key", r.files[n], "--node", n, "--odometer", od},
		"both values":  {"sensor", "report", "--order", good, "--coordinator-key", r.coord + ".pub", "--key", r.files[n], "--node", n, "--odometer", od, "--value", "1", "--value-file", good},
		"no odometer":  {"sensor", "report", "--order", good, "--coordinator-key", r.coord + ".pub", "--key", r.files[n], "--node", n, "--value", "1", "--policy", r.policies[n]},
		"no policy":    {"sensor", "report", "--order", good, "--coordinator-key", r.coord + ".pub", "--key", r.files[n], "--node", n, "--value", "1", "--odometer", od},
		"both stdin":   {"sensor", "report", "--order", "-", "--coordinator-key", r.coord + ".pub", "--key", r.files[n], "--node", n, "--odometer", od, "--value-file", "-"},
		"stray args":   {"sensor", "report", "x"},
		"no coord key": {"sensor", "report", "--order", good, "--key", r.files[n], "--node", n, "--odometer", od, "--value", "1"},
	} {
		if _, code, _ := runPrivacyCLI(t, args...); code != exitUsage {
			t.Errorf("%s: exit %d, want 2", name, code)
		}
	}
	// The order from standard input works.
	out, code, err := runCLIIn(t, string(env), "sensor", "report", "--order", "-", "--coordinator-key", r.coord+".pub", "--key", r.files[r.nodes[2]],
		"--node", r.nodes[2], "--value", "1.5", "--policy", r.policies[r.nodes[2]], "--odometer", r.odometers[r.nodes[2]])
	if code != 0 || !strings.Contains(out, `"kind":"graphcloak.report"`) {
		t.Errorf("--order -: exit %d, %v, %s", code, err, out)
	}
}
