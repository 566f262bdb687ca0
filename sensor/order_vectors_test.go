package sensor

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const orderVectorsPath = "testdata/orders.json"

// orderVectorFile is docs/local-sampler.md §10's order and refusal
// vectors: one sensor (its master key, node, policy file and a fresh
// odometer) given each case in turn, at the case's clock.
type orderVectorFile struct {
	Description          string          `json:"description"`
	CoordinatorSeed      string          `json:"coordinatorSeed"`
	CoordinatorPublicKey string          `json:"coordinatorPublicKey"`
	MasterKey            string          `json:"masterKey"`
	Node                 string          `json:"node"`
	SensorKey            string          `json:"sensorKey"`
	Policy               json.RawMessage `json:"policy"`
	Cases                []orderCase     `json:"cases"`
}

type orderCase struct {
	Name     string  `json:"name"`
	Now      string  `json:"now"`
	Envelope string  `json:"envelope"`
	Value    float64 `json:"value"`
	// Result is "report" or the refusal code (RefusalCode).
	Result string  `json:"result"`
	Report *Report `json:"report,omitempty"`
	// Rho is the ρ the report was charged (the odometer entry's).
	Rho float64 `json:"rho,omitempty"`
}

func vectorCoordinator() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("graphcloak order vectors coordinator"))
	return ed25519.NewKeyFromSeed(seed[:])
}

// rawEnvelope signs raw order bytes as they are (a lying coordinator's
// order that SignOrder would refuse to write).
func rawEnvelope(priv ed25519.PrivateKey, raw string) string {
	return fmt.Sprintf(`{"order":%s,"signature":"%s"}`+"\n", raw, base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte(raw))))
}

func orderVectorInputs(t *testing.T) (Policy, []orderCase) {
	priv := vectorCoordinator()
	mallory := ed25519.NewKeyFromSeed(make([]byte, 32))
	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	base := Order{Version: 1, Kind: OrderKind, Graph: OrderGraph{NodeCount: 3, RelationshipCount: 2, SHA256: strings.Repeat("ab", 32)},
		Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-6, Sensitivity: 0.5, EffectiveSensitivity: 0.5017, Rho: 0.0157,
		Sampler:   Sampler{Version: 3, GridExponent: 10, GridVariance: 4096 * 4096, Sigma: 4}, // σ = 2^-10·4096 = 4
		ReleaseID: "rel-" + strings.Repeat("01", 16), Scope: "building-7", Epoch: "2026-11-27T06",
		NotBefore: t0, NotAfter: t0.Add(time.Hour), Nodes: []string{"room-11", "room-12", "room-13"}}
	with := func(f func(o *Order)) Order {
		o := base
		o.Nodes = append([]string(nil), base.Nodes...)
		f(&o)
		return o
	}
	sign := func(o Order) string {
		env, err := SignOrder(priv, o)
		if err != nil {
			t.Fatal(err)
		}
		return string(env)
	}
	raw := func(o Order) string { b, _ := json.Marshal(o); return string(b) }
	at := func(d time.Duration) string { return t0.Add(d).Format(time.RFC3339) }
	epoch := func(i int) func(o *Order) {
		return func(o *Order) {
			o.Epoch, o.ReleaseID = fmt.Sprintf("2026-11-27T%02d", 6+i), fmt.Sprintf("rel-%032x", 0x100+i)
			o.NotBefore, o.NotAfter = t0.Add(time.Duration(i)*time.Hour), t0.Add(time.Duration(i+1)*time.Hour)
		}
	}
	good := sign(base)
	tampered := strings.Replace(good, `"epsilon":1`, `"epsilon":2`, 1)
	forged, _ := SignOrder(mallory, base)
	policy := Policy{Alpha: 1, SigmaFloor: 2, MaxEpsilonPerDay: 4, DayDelta: 1e-6, MaxReportsPerDay: 3, MaxValidity: 24 * time.Hour, GraphSHA256: base.Graph.SHA256, ReleaseNodes: 3}
	other := func(f func(o *Order)) string { return sign(with(f)) }
	cases := []orderCase{
		{Name: "a well-formed order: reported, charged at √2·α (not the order's Δ2 = 0.5)", Now: at(time.Minute), Envelope: good, Value: 21.375},
		{Name: "the same order and value again (a retry): the identical report, nothing charged", Now: at(2 * time.Minute), Envelope: good, Value: 21.375},
		{Name: "the same order, another value: the recorded report (the reading is not read), nothing charged", Now: at(3 * time.Minute), Envelope: good, Value: 21.5},
		{Name: "the same scope and epoch under another release id", Now: at(3 * time.Minute), Envelope: other(func(o *Order) { o.ReleaseID = "rel-" + strings.Repeat("02", 16) }), Value: 21.375},
		{Name: "the same release id under another epoch", Now: at(3 * time.Minute), Envelope: other(func(o *Order) { o.Epoch = "2026-11-27T06b" }), Value: 21.375},
		{Name: "the same release id with another σ̃²", Now: at(3 * time.Minute), Envelope: other(func(o *Order) { o.Sampler.GridVariance = 4097 * 4097 }), Value: 21.375},
		{Name: "the same release id with another k", Now: at(3 * time.Minute), Envelope: other(func(o *Order) { o.Sampler.GridExponent, o.Sampler.GridVariance = 11, 8192*8192 }), Value: 21.375},
		{Name: "the same order re-signed with another window (other bytes)", Now: at(3 * time.Minute), Envelope: other(func(o *Order) { o.NotAfter = t0.Add(2 * time.Hour) }), Value: 21.375},
		{Name: "a clock set back before the odometer's last report", Now: at(30 * time.Second), Envelope: other(func(o *Order) {
			o.Epoch, o.ReleaseID, o.NotBefore = "2026-11-27T05", fmt.Sprintf("rel-%032x", 0x200), t0.Add(-time.Hour)
		}), Value: 1},
		{Name: "signed by another key", Now: at(2 * time.Hour), Envelope: string(forged), Value: 1},
		{Name: "a byte of the order changed after signing", Now: at(time.Minute), Envelope: tampered, Value: 1},
		{Name: "a member twice (signed)", Now: at(time.Minute), Envelope: rawEnvelope(priv, strings.Replace(raw(with(epoch(1))), `{"version":1,`, `{"version":1,"epoch":"other",`, 1)), Value: 1},
		{Name: "a member name in another case (signed)", Now: at(time.Minute), Envelope: rawEnvelope(priv, strings.Replace(raw(with(epoch(1))), `"epsilon":`, `"Epsilon":`, 1)), Value: 1},
		{Name: "an unknown member (signed)", Now: at(time.Minute), Envelope: rawEnvelope(priv, strings.Replace(raw(with(epoch(1))), `{"version":1,`, `{"version":1,"extra":0,`, 1)), Value: 1},
		{Name: "a member missing: no sampler (signed)", Now: at(time.Minute), Envelope: rawEnvelope(priv, strings.Replace(raw(with(epoch(1))), `"sampler":{"version":3,"gridExponent":10,"gridVariance":16777216,"sigma":4},`, ``, 1)), Value: 1},
		{Name: "grid variance 0 (signed)", Now: at(time.Hour + time.Minute), Envelope: rawEnvelope(priv, strings.Replace(raw(with(epoch(1))), `"gridVariance":16777216`, `"gridVariance":0`, 1)), Value: 1},
		{Name: "a scope of 257 bytes (signed)", Now: at(time.Hour + time.Minute), Envelope: rawEnvelope(priv, raw(with(func(o *Order) { epoch(1)(o); o.Scope = strings.Repeat("s", 257) }))), Value: 1},
		{Name: "a node key of 257 bytes (signed)", Now: at(time.Hour + time.Minute), Envelope: rawEnvelope(priv, raw(with(func(o *Order) { epoch(1)(o); o.Nodes[0] = strings.Repeat("n", 257) }))), Value: 1},
		{Name: "before notBefore", Now: at(59 * time.Minute), Envelope: sign(with(epoch(1))), Value: 1},
		{Name: "at notAfter (the window is half-open)", Now: at(2 * time.Hour), Envelope: sign(with(epoch(1))), Value: 1},
		{Name: "valid for longer than maxValiditySeconds", Now: at(time.Minute), Envelope: sign(with(func(o *Order) { epoch(1)(o); o.NotBefore, o.NotAfter = t0, t0.Add(25*time.Hour) })), Value: 1},
		{Name: "this node not listed", Now: at(time.Hour + time.Minute), Envelope: sign(with(func(o *Order) { epoch(1)(o); o.Nodes = []string{"room-11", "room-13"} })), Value: 1},
		{Name: "another graph", Now: at(time.Hour + time.Minute), Envelope: sign(with(func(o *Order) { epoch(1)(o); o.Graph.SHA256 = strings.Repeat("cd", 32) })), Value: 1},
		{Name: "σ below the floor", Now: at(time.Hour + time.Minute), Envelope: sign(with(func(o *Order) { epoch(1)(o); o.Sampler.GridVariance = 2047 * 2047 })), Value: 1},
		{Name: "Δ2 stated as 1e-12, σ at the floor: charged at √2·α, over the daily cap", Now: at(time.Hour + time.Minute), Envelope: sign(with(func(o *Order) {
			epoch(1)(o)
			o.Sampler.GridVariance, o.Sensitivity, o.EffectiveSensitivity, o.Rho = 2048*2048, 1e-12, 1e-12+math.Sqrt(3)/1024, 1e-9
		})), Value: 1},
		{Name: "a reading too large for the grid", Now: at(time.Hour + time.Minute), Envelope: sign(with(epoch(1))), Value: 1e300},
		{Name: "a second epoch: reported", Now: at(time.Hour + time.Minute), Envelope: sign(with(epoch(1))), Value: -0.5},
		{Name: "a third epoch: reported", Now: at(2*time.Hour + time.Minute), Envelope: sign(with(epoch(2))), Value: 0},
		{Name: "a fourth epoch the same UTC day: over maxReportsPerDay", Now: at(3*time.Hour + time.Minute), Envelope: sign(with(epoch(3))), Value: 7},
		{Name: "the next UTC day: reported", Now: at(24*time.Hour + time.Minute), Envelope: sign(with(epoch(24))), Value: 7},
		{Name: "an order split to this node alone (n = 1, graph of 1 node, ρ stated small): charged as the release of 3 (releaseNodes)",
			Now: at(25*time.Hour + time.Minute), Envelope: other(func(o *Order) {
				epoch(25)(o)
				o.Nodes, o.Graph.NodeCount, o.EffectiveSensitivity, o.Rho = []string{"room-12"}, 1, 0.5, 1e-9
			}), Value: 7},
	}
	return policy, cases
}

// replayOrders runs the cases through one sensor and fills in results.
func replayOrders(t *testing.T, policy Policy, cases []orderCase) []orderCase {
	var master [32]byte
	copy(master[:], []byte("graphcloak order vectors master!"))
	dir := t.TempDir()
	od := filepath.Join(dir, "odometer.json")
	if err := InitOdometer(od, "room-12", time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), false); err != nil {
		t.Fatal(err)
	}
	var now time.Time
	s := &Sensor{Coordinator: vectorCoordinator().Public().(ed25519.PublicKey), Node: "room-12", Key: Key(SensorKey(master, "room-12")),
		Policy: policy, Odometer: od, Now: func() time.Time { return now }}
	out := make([]orderCase, len(cases))
	for i, c := range cases {
		now, _ = time.Parse(time.RFC3339, c.Now)
		rep, err := s.Report([]byte(c.Envelope), c.Value)
		c.Result, c.Report, c.Rho = RefusalCode(err), nil, 0
		if err == nil {
			c.Result, c.Report = "report", &rep
			o, _ := loadOdometer(od, "room-12")
			if e := o.find(mustVerify(t, c.Envelope)); e != nil {
				c.Rho = e.Rho
			}
		}
		out[i] = c
	}
	return out
}

func mustVerify(t *testing.T, env string) Order {
	o, err := VerifyOrder(vectorCoordinator().Public().(ed25519.PublicKey), []byte(env))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The order and refusal vectors of docs/local-sampler.md §10 are what this
// implementation does (regenerate with -update-vectors only when the
// specification changes).
func TestOrderVectors(t *testing.T) {
	policy, inputs := orderVectorInputs(t)
	if *updateVectors {
		var master [32]byte
		copy(master[:], []byte("graphcloak order vectors master!"))
		ks := SensorKey(master, "room-12")
		pf, _ := json.Marshal(NewPolicyFile("room-12", policy))
		priv := vectorCoordinator()
		f := orderVectorFile{Description: "graphcloak sensor order and refusal vectors: docs/local-sampler.md §10. Apply the cases in order to one sensor " +
			"(node, sensor key, policy) whose odometer starts empty; now is the sensor's clock; envelope is the order file's exact bytes; " +
			"result is \"report\" or the refusal code; rho is the ρ the report is charged.",
			CoordinatorSeed: hex.EncodeToString(priv.Seed()), CoordinatorPublicKey: hex.EncodeToString(priv.Public().(ed25519.PublicKey)),
			MasterKey: hex.EncodeToString(master[:]), Node: "room-12", SensorKey: hex.EncodeToString(ks[:]), Policy: pf,
			Cases: replayOrders(t, policy, inputs)}
		b, _ := json.MarshalIndent(f, "", "  ")
		if err := os.WriteFile(orderVectorsPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(orderVectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var f orderVectorFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	pp := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pp, f.Policy, 0o600)
	filePolicy, err := LoadPolicy(pp, f.Node)
	if err != nil || filePolicy != policy {
		t.Fatalf("the vectors' policy %+v (%v), want %+v", filePolicy, err, policy)
	}
	if len(f.Cases) != len(inputs) {
		t.Fatalf("%d cases, want %d", len(f.Cases), len(inputs))
	}
	got := replayOrders(t, filePolicy, f.Cases)
	codes := map[string]int{}
	for i, c := range f.Cases {
		g := got[i]
		codes[c.Result]++
		if g.Result != c.Result || (c.Report == nil) != (g.Report == nil) || (c.Report != nil && *c.Report != *g.Report) || g.Rho != c.Rho {
			t.Errorf("%s: got %s %+v ρ %v, file %s %+v ρ %v", c.Name, g.Result, g.Report, g.Rho, c.Result, c.Report, c.Rho)
		}
	}
	// The vectors cover every refusal the order and policy can cause.
	for _, want := range []string{"report", "already-reported", "bad-signature", "bad-order", "early", "expired", "validity", "not-in-order",
		"graph", "sigma-floor", "daily-cap", "bad-value", "clock-behind"} {
		if codes[want] == 0 {
			t.Errorf("no vector gives %q", want)
		}
	}
}

// An independent sensor written in Python from docs/local-sampler.md
// (testdata/pysensor.py: Ed25519, the strict envelope, Order.Check, the
// policy, the cost, the odometer, the sampler) gives every order vector's
// result: the same reports, the same ρ, the same refusals.
func TestOrderVectorsIndependentPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the independent Python sensor cannot run here (CI has python3)")
	}
	out, err := exec.Command(py, filepath.Join("testdata", "pysensor.py"), "vectors", orderVectorsPath).CombinedOutput()
	if err != nil {
		t.Fatalf("pysensor.py: %v\n%s", err, out)
	}
	_, inputs := orderVectorInputs(t)
	if !strings.Contains(string(out), fmt.Sprintf("%d order cases OK", len(inputs))) {
		t.Fatalf("pysensor.py did not check every case:\n%s", out)
	}
}
