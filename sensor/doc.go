// Package sensor is the sensor's side of graphcloak's local releases
// (issue 58; docs/local-sampler.md): the epoch order a coordinator signs
// (Order, SignOrder, VerifyOrder), the sensor's own policy and odometer, and
// the report a sensor sends (Report, SealReport, Report.Verify), whose noise
// the sensor draws itself from its own key, so that no raw value leaves it.
//
// Keys: the master key's holder derives each node's sensor key K_s
// (SensorKey) and provisions it to that sensor; the collector holds only the
// report-MAC keys K_mac = HMAC-SHA256(K_s, "graphcloak/report-mac/v1")
// (ReportMACKey). The noise is keyednoise's sampler version 3: a central
// keyed release with the master key and the same order draws the same
// noise bit for bit, and the master key's holder can remove it.
//
// A sensor never takes the coordinator's word for what a report costs: its
// Policy (provisioned beside its key; the zero Policy refuses everything)
// charges each report at its own Δ2 bound (√2·α, or a provisioned bound)
// against a daily cap on the sensor's UTC calendar day, and its odometer
// (provisioned too, InitOdometer; a missing one is refused) records every
// report so that no epoch is reported twice.
//
// The package depends on the standard library, golang.org/x/crypto and
// package keyednoise only: sensors are small.
package sensor
