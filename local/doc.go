// Package local is the coordinator's and the collector's side of a local
// release (issue 58; DESIGN.md "Who sees what"): the sensors add their own
// keyed noise, so neither party ever holds a raw reading.
//
// The coordinator opens an epoch (OpenEpoch): with Δ2 certified and σ
// calibrated by the caller exactly as a central release does
// (privacy.CalibrateRelease), it charges the ledger once for the epoch
// and writes the signed epoch order. Opening an epoch again re-publishes
// the stored order: never a second charge, never a new release id.
//
// The collector (Collector) holds the order, the coordinator's public key
// and the sensors' report-MAC keys only. It verifies each report (kind,
// epoch, node, MAC, validity window), refuses duplicates, and stores the
// accepted noisy values in an append-only journal, fsynced before a report
// is acknowledged (group commit: concurrent submissions share one
// fsync), so a collector killed and restarted loses no acknowledged report
// and stores none twice. Closing the epoch turns the journal into a
// release file in the format of privacy.WriteReleaseFile, its metadata
// taken from the order (sampler version 3, keyed), with the nodes that did
// not report listed as missing.
//
// Provision derives the sensors' keys from a master key and writes them
// with their policies, odometers and the collector's report-MAC keys, the
// file ReadMACKeysFile reads.
//
// Its callers are the stores (an epoch opened, collected and published on
// them) and the service (serve's collectors and its epoch loop); the
// command names its results and provisions sensors only.
//
// Conventions: times are UTC; a report is one JSON object per line (JSON
// Lines); every refusal carries a Reason, a short stable word that
// commands print and count.
package local
