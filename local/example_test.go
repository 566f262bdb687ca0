package local_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/sensor"
)

// A collector verifies a sensor's report against the order and the
// node's report-MAC key, stores it, refuses a second value, and closes the
// epoch into a release with the node that did not report listed as
// missing.
func ExampleCollector() {
	dir, _ := os.MkdirTemp("", "journal")
	defer os.RemoveAll(dir)
	var master [32]byte // the key holder's; the collector gets only K_mac
	macKeys := map[string][]byte{}
	for _, n := range []string{"room-1", "room-2"} {
		macKeys[n] = sensor.ReportMACKey(sensor.SensorKey(master, n))
	}
	now := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	order := local.Order{Version: 1, Kind: local.OrderKind, Scope: "building-7", Epoch: "e1",
		ReleaseID: "rel-00000000000000000000000000000001", Sampler: local.Sampler{Version: 3, GridExponent: 10, GridVariance: 1 << 20},
		NotBefore: now, NotAfter: now.Add(time.Hour), Nodes: []string{"room-1", "room-2"}}
	// The digest of the order's signed bytes (sensor.OrderSHA256 of the
	// order file): each report names it under its MAC.
	signed, _ := json.Marshal(order)
	sum := sha256.Sum256(signed)
	digest := hex.EncodeToString(sum[:])
	c, err := local.OpenCollector(local.CollectorOptions{Order: order, OrderSHA256: digest, MACKeys: macKeys, JournalDir: dir,
		Now: func() time.Time { return now.Add(time.Minute) }})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	report := func(grid int64) []byte { // what room-1's sensor sends (its noise already in grid)
		r := sensor.Report{Kind: sensor.ReportKind, Version: 2, Node: "room-1", Scope: "building-7", Epoch: "e1",
			ReleaseID: order.ReleaseID, OrderSHA256: digest, Grid: grid, Value: math.Ldexp(float64(grid), -10)}
		sensor.SealReport(macKeys["room-1"], &r)
		return []byte(fmt.Sprintf(`{"kind":%q,"version":2,"node":%q,"scope":%q,"epoch":%q,"releaseId":%q,"orderSha256":%q,"grid":%d,"value":%v,"mac":%q}`,
			r.Kind, r.Node, r.Scope, r.Epoch, r.ReleaseID, r.OrderSHA256, r.Grid, r.Value, r.MAC))
	}
	for _, res := range c.Submit([][]byte{report(517), report(600)}, 1) {
		fmt.Println(res.Line, res.Node, res.Result, res.Reason)
	}
	rel, _ := c.CloseEpoch("example")
	fmt.Println(rel.Keys, rel.Values, "missing:", rel.Meta.Missing)
	// Output:
	// 1 room-1 accepted accepted
	// 2 room-1 refused second-value
	// [room-1] [0.5048828125] missing: [room-2]
}
