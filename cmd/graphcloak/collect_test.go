package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/graphcloak/graphcloak/stores"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// collectRig is a local release's parties on karate: the master key (the
// key holder), the coordinator's signing key, the collector's MAC keys,
// one sensor per node with its raw reading.
type collectRig struct {
	dir, ledger, master, signing, macKeys string
	readings                              map[string]float64
	masterKey                             privacy.Key
}

func newCollectRig(t *testing.T) *collectRig {
	t.Helper()
	isolateConfig(t)
	dir := t.TempDir()
	r := &collectRig{dir: dir, ledger: filepath.Join(dir, "ledger.json"), master: filepath.Join(dir, "master.key"),
		signing: filepath.Join(dir, "coord.key"), macKeys: filepath.Join(dir, "mac-keys.csv"), readings: map[string]float64{}}
	mustRun(t, "keygen", "--out", r.master)
	var err error
	if r.masterKey, err = privacy.LoadKey(r.master); err != nil {
		t.Fatal(err)
	}
	if _, err := sensor.GenerateSigningKey(r.signing); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("node,reportMacKeyHex\n")
	for k := 1; k <= 34; k++ {
		node := fmt.Sprint(k)
		r.readings[node] = 0.5 + math.Sin(float64(k))*0.25 + float64(k)*1e-4
		fmt.Fprintf(&csv, "%s,%x\n", node, sensor.ReportMACKey(sensor.SensorKey(r.masterKey, node)))
	}
	if err := os.WriteFile(r.macKeys, []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "budget", "--init", "--ledger", r.ledger, "--scope", "building-7", "--epsilon-total", "10", "--delta-total", "1e-5")
	return r
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb strings.Builder
	if code := runArgs(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

func runCode(args ...string) (int, string, string) {
	var out, errb strings.Builder
	code := runArgs(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func (r *collectRig) open(t *testing.T, epoch, out string, extra ...string) stores.EpochOpened {
	t.Helper()
	args := append([]string{"epoch", "open", "--graph", "karate", "--tau", "1", "--epsilon", "1", "--delta", "1e-6",
		"--ledger", r.ledger, "--scope", "building-7", "--epoch", epoch, "--valid-for", "1h", "--signing-key", r.signing,
		"--out", out, "-o", "json"}, extra...)
	var sum stores.EpochOpened
	if err := json.Unmarshal([]byte(mustRun(t, args...)), &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// reports are the sensors' reports of nodes to the order at path, each
// sensor given only its own key, node and reading.
func (r *collectRig) reports(t *testing.T, order string, nodes ...string) []byte {
	t.Helper()
	b, err := r.tryReports(order, nodes...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tryReports is reports returning the sensors' error (an expired order).
func (r *collectRig) tryReports(order string, nodes ...string) ([]byte, error) {
	env, err := os.ReadFile(order)
	if err != nil {
		return nil, err
	}
	pub, err := sensor.LoadCoordinatorKey(r.signing + ".pub")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, n := range nodes {
		s := sensor.Sensor{Coordinator: pub, Node: n, Key: sensor.Key(sensor.SensorKey(r.masterKey, n)),
			Odometer: filepath.Join(r.dir, "odometer-"+n), Policy: sensor.Policy{Alpha: 1, SigmaFloor: 1e-3, MaxEpsilonPerDay: 1e6}}
		if _, err := os.Lstat(s.Odometer); err != nil {
			if err := sensor.InitOdometer(s.Odometer, n, time.Now().Add(-24*time.Hour), false); err != nil {
				return nil, err
			}
		}
		rep, err := s.Report(env, r.readings[n])
		if err != nil {
			return nil, err
		}
		line, _ := json.Marshal(rep)
		b.Write(append(line, '\n'))
	}
	return b.Bytes(), nil
}

func (r *collectRig) collect(t *testing.T, order, journal string, reports []byte, extra ...string) (int, stores.Collected, string) {
	t.Helper()
	path := filepath.Join(r.dir, fmt.Sprintf("reports-%d.jsonl", time.Now().UnixNano()))
	os.WriteFile(path, reports, 0o644)
	args := append([]string{"collect", "--order", order, "--coordinator-key", r.signing + ".pub", "--mac-keys", r.macKeys,
		"--journal", journal, "--reports", path, "-o", "json"}, extra...)
	code, out, errb := runCode(args...)
	var sum stores.Collected
	if out != "" {
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("collect output: %v\n%s\n%s", err, out, errb)
		}
	}
	return code, sum, errb
}

func ledgerSpent(t *testing.T, ledger string) float64 {
	t.Helper()
	var b struct {
		Scopes []struct {
			RhoSpent float64 `json:"rhoSpent"`
		} `json:"scopes"`
	}
	out := mustRun(t, "budget", "--ledger", ledger, "--scope", "building-7", "-o", "json")
	if err := json.Unmarshal([]byte(out), &b); err != nil || len(b.Scopes) != 1 {
		t.Fatalf("budget output: %v\n%s", err, out)
	}
	return b.Scopes[0].RhoSpent
}

// TestLocalReleaseCLI: epoch open charges once (a second open
// re-publishes, the ledger unchanged); sensors report; collect stores
// them, refuses a second batch's duplicates and forgeries with exit 3,
// closes the epoch into a release file that locate reads (the missing
// nodes left out) and unmask turns into the readings on the grid.
func TestLocalReleaseCLI(t *testing.T) {
	r := newCollectRig(t)
	order := filepath.Join(r.dir, "order.json")
	first := r.open(t, "e1", order, "--key-fingerprint", r.masterKey.Fingerprint())
	if !first.Charged || first.Expected != 34 || first.ReleaseID == "" {
		t.Fatalf("epoch open: %+v", first)
	}
	spent := ledgerSpent(t, r.ledger)
	again := r.open(t, "e1", order)
	if again.Charged || !again.Republished || again.ReleaseID != first.ReleaseID || ledgerSpent(t, r.ledger) != spent {
		t.Fatalf("second epoch open charged or re-drew: %+v (spent %v → %v)", again, spent, ledgerSpent(t, r.ledger))
	}
	var nodes []string
	for k := 1; k <= 30; k++ { // 31…34 never report
		nodes = append(nodes, fmt.Sprint(k))
	}
	journal := filepath.Join(r.dir, "journal")
	code, sum, errb := r.collect(t, order, journal, r.reports(t, order, nodes[:20]...))
	if code != 0 || sum.Accepted != 20 || sum.Closed {
		t.Fatalf("collect: exit %d %+v %s", code, sum, errb)
	}
	// A retry of the same reports with ten new ones and a forged one.
	batch := r.reports(t, order, nodes...)
	var forged sensor.Report // node 31's report made up from node 1's: the MAC cannot follow
	json.Unmarshal(bytes.Split(batch, []byte("\n"))[0], &forged)
	forged.Node = "31"
	fl, _ := json.Marshal(forged)
	batch = append(batch, append(fl, '\n')...)
	code, sum, _ = r.collect(t, order, journal, batch, "--close", "--out", filepath.Join(r.dir, "release.json"))
	if code != exitBadInput || sum.Accepted != 10 || sum.Refused["duplicate"] != 20 || sum.Refused["bad-mac"] != 1 {
		t.Fatalf("second collect: exit %d %+v", code, sum)
	}
	if !sum.Closed || len(sum.Missing) != 4 || sum.Reported != 30 {
		t.Fatalf("close: %+v", sum)
	}
	rel, err := privacy.ReadReleaseFile(sum.Release)
	if err != nil {
		t.Fatal(err)
	}
	back, err := privacy.Unmask(r.masterKey, rel)
	if err != nil {
		t.Fatal(err)
	}
	k := rel.Meta.GridExponent
	for i, key := range rel.Keys {
		if want := math.Ldexp(math.Round(math.Ldexp(r.readings[key], k)), -k); back[i] != want {
			t.Errorf("%s: unmasked %v, want %v", key, back[i], want)
		}
	}
	// unmask and locate, the commands.
	mustRun(t, "unmask", "--key", r.master, "--release", sum.Release, "-o", "json")
	out := mustRun(t, "locate", "--graph", "karate", "--release", sum.Release, "-o", "json")
	if !strings.Contains(out, `"status"`) {
		t.Errorf("locate output: %s", out)
	}
	if ledgerSpent(t, r.ledger) != spent {
		t.Errorf("collecting charged the ledger")
	}
	// The order named the master key: unmask refuses another.
	other := filepath.Join(r.dir, "other.key")
	mustRun(t, "keygen", "--out", other)
	if code, _, errb := runCode("unmask", "--key", other, "--release", sum.Release); code != exitBadInput {
		t.Errorf("unmask with another key: exit %d: %s", code, errb)
	}
	// The release is of karate: locate on another graph is refused.
	if code, _, errb := runCode("locate", "--graph", "grid:rows=6,cols=6", "--release", sum.Release); code != exitBadInput {
		t.Errorf("locate on another graph: exit %d: %s", code, errb)
	}
}

// TestLocalHostileCLI: bad inputs to epoch open and collect end with
// their documented exit codes and charge nothing more.
func TestLocalHostileCLI(t *testing.T) {
	r := newCollectRig(t)
	order := filepath.Join(r.dir, "order.json")
	r.open(t, "e1", order)
	spent := ledgerSpent(t, r.ledger)
	other := filepath.Join(r.dir, "other.key")
	if _, err := sensor.GenerateSigningKey(other); err != nil {
		t.Fatal(err)
	}
	nodesFile := filepath.Join(r.dir, "nodes.txt")
	os.WriteFile(nodesFile, []byte("1\n2\nnot-a-node\n"), 0o644)
	dupNodes := filepath.Join(r.dir, "dup.txt")
	os.WriteFile(dupNodes, []byte("1\n2\n1\n"), 0o644)
	openArgs := func(epoch, out string, extra ...string) []string {
		return append([]string{"epoch", "open", "--graph", "karate", "--tau", "1", "--epsilon", "1", "--delta", "1e-6",
			"--ledger", r.ledger, "--scope", "building-7", "--epoch", epoch, "--signing-key", r.signing, "--out", out}, extra...)
	}
	openMode := filepath.Join(r.dir, "lax.key")
	data, _ := os.ReadFile(r.signing)
	os.WriteFile(openMode, data, 0o644)
	laxKeys := filepath.Join(r.dir, "lax-mac.csv")
	data, _ = os.ReadFile(r.macKeys)
	os.WriteFile(laxKeys, data, 0o644)
	tampered := filepath.Join(r.dir, "tampered.json")
	data, _ = os.ReadFile(order)
	os.WriteFile(tampered, bytes.Replace(data, []byte(`"epsilon":1`), []byte(`"epsilon":9`), 1), 0o644)
	journal := filepath.Join(r.dir, "journal")
	collectArgs := func(order, pub, keys string) []string {
		return []string{"collect", "--order", order, "--coordinator-key", pub, "--mac-keys", keys, "--journal", journal, "--close"}
	}
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"open: the same epoch with another ε", append(openArgs("e1", order), "--epsilon", "2"), exitBadInput},
		{"open: another epoch onto the order file", openArgs("e2", order), exitBadInput},
		{"open: signed with another key onto the order file", append(openArgs("e1", order), "--signing-key", other), exitBadInput},
		{"open: a node outside the graph", openArgs("e3", filepath.Join(r.dir, "o3.json"), "--nodes", nodesFile), exitBadInput},
		{"open: a node listed twice", openArgs("e3", filepath.Join(r.dir, "o3.json"), "--nodes", dupNodes), exitBadInput},
		{"open: a signing key others can read", openArgs("e3", filepath.Join(r.dir, "o3.json"), "--signing-key", openMode), exitBadInput},
		{"open: no --epoch", openArgs("", filepath.Join(r.dir, "o3.json")), exitUsage},
		{"open: a scope without a budget", openArgs("e3", filepath.Join(r.dir, "o3.json"), "--scope", "nowhere"), exitBadInput},
		{"open: the classic mechanism", openArgs("e3", filepath.Join(r.dir, "o3.json"), "--mechanism", "classic", "--epsilon", "0.5"), exitBadInput},
		{"open: over budget", openArgs("e3", filepath.Join(r.dir, "o3.json"), "--epsilon", "40"), exitBudgetExhausted},
		{"collect: an order signed by another coordinator", collectArgs(order, other+".pub", r.macKeys), exitBadInput},
		{"collect: a tampered order", collectArgs(tampered, r.signing+".pub", r.macKeys), exitBadInput},
		{"collect: MAC keys others can read", collectArgs(order, r.signing+".pub", laxKeys), exitBadInput},
		{"collect: neither reports nor --close", []string{"collect", "--order", order, "--coordinator-key", r.signing + ".pub", "--mac-keys", r.macKeys, "--journal", journal}, exitUsage},
	}
	for _, tc := range cases {
		if code, _, errb := runCode(tc.args...); code != tc.want {
			t.Errorf("%s: exit %d, want %d: %s", tc.name, code, tc.want, errb)
		}
	}
	if got := ledgerSpent(t, r.ledger); got != spent {
		t.Errorf("the refusals charged: spent %v → %v", spent, got)
	}
	// An epoch charged by a central release cannot be opened (exit 7).
	readings, _ := karateReadings(t, r.dir, false)
	mustRun(t, "release", "--graph", "karate", "--values", readings, "--out", filepath.Join(r.dir, "central.json"),
		"--ledger", r.ledger, "--scope", "building-7", "--epoch", "e9", "--epsilon", "1", "--delta", "1e-6", "--time-budget", "1m")
	spent = ledgerSpent(t, r.ledger)
	if code, _, errb := runCode(openArgs("e9", filepath.Join(r.dir, "o9.json"))...); code != exitChargedEpoch {
		t.Errorf("an epoch a central release charged: exit %d: %s", code, errb)
	}
	if ledgerSpent(t, r.ledger) != spent {
		t.Error("opening a charged epoch charged again")
	}
}

// TestLocalSchemas: epoch open's and collect's JSON outputs validate
// against docs/schemas/epoch-open and collect (counted in TestJSONSchemas).
func TestLocalSchemas(t *testing.T) {
	r := newCollectRig(t)
	order := filepath.Join(r.dir, "order.json")
	out := mustRun(t, "epoch", "open", "--graph", "karate", "--tau", "1", "--epsilon", "1", "--delta", "1e-6",
		"--ledger", r.ledger, "--scope", "building-7", "--epoch", "e1", "--signing-key", r.signing, "--out", order, "-o", "json")
	validate(t, "epoch-open", out)
	reports := append(r.reports(t, order, "1", "2"), []byte("{\"kind\":\"x\"}\n")...)
	path := filepath.Join(r.dir, "reports.jsonl")
	os.WriteFile(path, reports, 0o644)
	_, out, _ = runCode("collect", "--order", order, "--coordinator-key", r.signing+".pub", "--mac-keys", r.macKeys,
		"--journal", filepath.Join(r.dir, "journal"), "--reports", path, "--close", "-o", "json")
	validate(t, "collect", out)
}

// TestCollectExpiredOrder: reports to an order whose window has ended are
// refused late (exit 3), and collect closes the epoch by itself: a
// release file with every node missing.
func TestCollectExpiredOrder(t *testing.T) {
	r := newCollectRig(t)
	order := filepath.Join(r.dir, "order.json")
	start := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	r.open(t, "e1", order, "--not-before", start.Format(time.RFC3339), "--valid-for", "1h")
	env, _ := os.ReadFile(order)
	pub, _ := sensor.LoadCoordinatorKey(r.signing + ".pub")
	s := sensor.Sensor{Coordinator: pub, Node: "1", Key: sensor.Key(sensor.SensorKey(r.masterKey, "1")), Policy: sensor.Policy{Alpha: 1, SigmaFloor: 1e-3, MaxEpsilonPerDay: 1e6},
		Odometer: filepath.Join(r.dir, "odo-1"), Now: func() time.Time { return start.Add(30 * time.Minute) }} // sent in time, arriving late
	if err := sensor.InitOdometer(s.Odometer, "1", start, false); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report(env, r.readings["1"])
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(rep)
	code, sum, errb := r.collect(t, order, filepath.Join(r.dir, "journal"), append(line, '\n'))
	if code != exitBadInput || sum.Refused["late"] != 1 || !sum.Closed || len(sum.Missing) != 34 {
		t.Fatalf("expired order: exit %d %+v %s", code, sum, errb)
	}
	rel, err := privacy.ReadReleaseFile(sum.Release)
	if err != nil || rel.Meta.N != 0 || rel.Meta.Expected != 34 {
		t.Errorf("release of an epoch nobody reported to in time: %+v %v", rel, err)
	}
}
