// Package answer is the private answer: the operator recovers the source
// from its own raw readings and publishes only its community, drawn by
// privacy.SampleAnswer under an ε charged to the ledger (Run).
//
// The answer rests on a model of the graph at τ (Model: the certified
// recovery's pass over every source, and its audit of every edge's
// privacy loss), which is expensive, so it is certified once and reused:
// Cache stores it as a MAC-sealed certificate and its calibrations beside
// it, Certify and Checkpoint run the pass resumably (audit), Part and
// MergeParts split it into shards computed on several machines, and
// EstimateAudit forecasts its time before it runs.
package answer
