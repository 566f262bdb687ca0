package local

// Reason is why a report was refused ("" for an accepted one). The words
// are stable: commands print them, serve counts them in /metrics.
type Reason string

const (
	// Accepted: verified and stored durably.
	Accepted Reason = ""
	// Malformed: not a JSON object of the report's fields and types, or
	// its value is not its grid integer on the order's grid.
	Malformed Reason = "malformed"
	// NotAReport: a JSON object of another kind or version.
	NotAReport Reason = "not-a-report"
	// Oversized: a line longer than the collector accepts.
	Oversized Reason = "oversized"
	// OldVersion: a version 1 report, whose MAC does not cover the order
	// it answers.
	OldVersion Reason = "old-version"
	// OtherEpoch: a report for another release id, scope or epoch.
	OtherEpoch Reason = "other-epoch"
	// OtherOrder: a report of this release made for another order (its
	// orderSha256 is not the digest of the order the collector holds): an
	// order split to fewer nodes, or changed and re-signed.
	OtherOrder Reason = "other-order"
	// UnknownNode: a node the order does not expect, or one without a
	// report-MAC key.
	UnknownNode Reason = "unknown-node"
	// BadMAC: the MAC does not verify under the node's report-MAC key.
	BadMAC Reason = "bad-mac"
	// Early and Late: outside the order's validity window.
	Early Reason = "early"
	Late  Reason = "late"
	// Closed: the epoch was closed.
	Closed Reason = "closed"
	// Duplicate: the same report again (a retry): it is stored already.
	Duplicate Reason = "duplicate"
	// SecondValue: another report for a node that has reported.
	SecondValue Reason = "second-value"
	// Unavailable: the journal failed; the collector stores nothing more.
	Unavailable Reason = "unavailable"
)

// Reasons lists every refusal reason, in the order summaries print them.
var Reasons = []Reason{Malformed, NotAReport, OldVersion, Oversized, OtherEpoch, OtherOrder, UnknownNode, BadMAC, Early, Late, Closed, Duplicate, SecondValue, Unavailable}

// Stored reports whether a report with this outcome is in the journal:
// accepted now, or a duplicate of one accepted before.
func (r Reason) Stored() bool { return r == Accepted || r == Duplicate }

func (r Reason) String() string {
	if r == Accepted {
		return "accepted"
	}
	return string(r)
}
