package local

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/graphcloak/graphcloak/sensor"
	"math"
	"testing"
	"time"
)

// t0 is the tests' clock: inside the window of testOrder.
var t0 = time.Date(2026, 11, 27, 6, 30, 0, 0, time.UTC)

// testKeys are deterministic report-MAC keys of n nodes n0…n(n-1) (the
// sensor key of a node is SHA-256 of its name here: the collector never
// sees sensor keys, only K_mac).
func testKeys(n int) ([]string, map[string][]byte) {
	nodes := make([]string, n)
	keys := make(map[string][]byte, n)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("n%d", i)
		keys[nodes[i]] = sensor.ReportMACKey(sha256.Sum256([]byte(nodes[i])))
	}
	return nodes, keys
}

func testOrder(nodes []string) Order {
	return Order{Version: 1, Kind: OrderKind, Graph: OrderGraph{NodeCount: len(nodes), RelationshipCount: 3, SHA256: fmt.Sprintf("%064x", 7)},
		Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-5, Sensitivity: 0.5, EffectiveSensitivity: 0.5001, Rho: 0.01,
		Sampler:   Sampler{Version: 3, GridExponent: 20, GridVariance: 1 << 40, Sigma: 1},
		ReleaseID: "rel-" + fmt.Sprintf("%032x", 42), Scope: "building-7", Epoch: "e1",
		NotBefore: t0.Add(-time.Hour), NotAfter: t0.Add(time.Hour), Nodes: nodes}
}

// orderSHA is the digest of o's signed bytes as SignOrder writes them
// (its compact JSON): what a report of o names.
func orderSHA(o Order) string {
	b, _ := json.Marshal(o)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// report is node's sealed report of grid integer g for o.
func report(o Order, keys map[string][]byte, node string, g int64) Report {
	r := Report{Kind: ReportKind, Version: sensor.ReportVersion, Node: node, Scope: o.Scope, Epoch: o.Epoch, ReleaseID: o.ReleaseID,
		OrderSHA256: orderSHA(o), Grid: g, Value: math.Ldexp(float64(g), -o.Sampler.GridExponent)}
	if k, ok := keys[node]; ok {
		sensor.SealReport(k, &r)
	} else {
		sensor.SealReport([]byte("no key"), &r)
	}
	return r
}

func line(t testing.TB, r any) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func openTest(t testing.TB, o Order, keys map[string][]byte, dir string, clk *clock) *Collector {
	t.Helper()
	c, err := OpenCollector(CollectorOptions{Order: o, OrderSHA256: orderSHA(o), MACKeys: keys, JournalDir: dir, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testSigner(seed byte) ed25519.PrivateKey {
	var s [32]byte
	s[0] = seed
	return ed25519.NewKeyFromSeed(s[:])
}
