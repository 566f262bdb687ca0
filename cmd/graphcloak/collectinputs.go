package main

import (
	"os"

	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/sensor"
)

// readCollectInputs reads what a collector needs (collect and serve
// --collect-order): the order, verified under the coordinator's public key
// (and its envelope as signed), the report-MAC keys, and the journal's
// directory, created if missing.
func readCollectInputs(coordinatorKey, orderFile, macKeys, journal string) (sensor.Order, []byte, map[string][]byte, error) {
	pub, err := sensor.LoadCoordinatorKey(coordinatorKey)
	if err != nil {
		return sensor.Order{}, nil, nil, inputError{err}
	}
	order, env, err := local.ReadOrderFile(orderFile, pub)
	if err != nil {
		return sensor.Order{}, nil, nil, inputError{err}
	}
	keys, err := local.ReadMACKeysFile(macKeys)
	if err != nil {
		return sensor.Order{}, nil, nil, inputError{err}
	}
	if err := os.MkdirAll(journal, 0o755); err != nil {
		return sensor.Order{}, nil, nil, inputErrorf("--journal: %w", err)
	}
	return order, env, keys, nil
}
