package local

import (
	"os"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/sensor"
)

// ParamJournal names a collector's journal directory.
const ParamJournal errkind.Param = "journal"

// CollectorFiles name what a collector reads: the coordinator's public
// key, the signed order, the sensors' report-MAC keys (ReadMACKeysFile)
// and the journal's directory (created if missing).
type CollectorFiles struct {
	CoordinatorKey, Order, MACKeys, Journal string
	// Now is the collector's clock (nil: time.Now).
	Now func() time.Time
}

// OpenCollectorFiles reads the files f names — the order verified under
// the coordinator's public key — and opens the collector on the journal
// (OpenCollector). It returns the order's signed envelope beside it, as a
// collector serves it.
func OpenCollectorFiles(f CollectorFiles) (*Collector, []byte, error) {
	pub, err := sensor.LoadCoordinatorKey(f.CoordinatorKey)
	if err != nil {
		return nil, nil, errkind.Input(err)
	}
	order, env, err := ReadOrderFile(f.Order, pub)
	if err != nil {
		return nil, nil, errkind.Input(err)
	}
	keys, err := ReadMACKeysFile(f.MACKeys)
	if err != nil {
		return nil, nil, errkind.Input(err)
	}
	if err := os.MkdirAll(f.Journal, 0o755); err != nil {
		return nil, nil, errkind.Inputf("%s: %w", ParamJournal, err)
	}
	digest, err := sensor.OrderSHA256(env)
	if err != nil {
		return nil, nil, errkind.Input(err)
	}
	c, err := OpenCollector(CollectorOptions{Order: order, OrderSHA256: digest, MACKeys: keys, JournalDir: f.Journal, Now: f.Now})
	if err != nil {
		return nil, nil, err
	}
	return c, env, nil
}
