package sensor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/keyednoise"
)

// Report is one sensor's report of one epoch: the noisy value only. A
// batch of reports is JSON Lines, one report per line.
type Report struct {
	Kind      string `json:"kind"`    // ReportKind
	Version   int    `json:"version"` // ReportVersion
	Node      string `json:"node"`
	Scope     string `json:"scope"`
	Epoch     string `json:"epoch"`
	ReleaseID string `json:"releaseId"`
	// OrderSHA256 is the hex SHA-256 of the signed order's bytes the
	// report answers (OrderSHA256): the MAC covers it, so a collector
	// holding any other order — one listing every node where the sensor
	// was shown one listing itself — refuses the report. Version 1 reports
	// have none.
	OrderSHA256 string `json:"orderSha256,omitempty"`
	// Grid is r = round(y·2^k) + Z, Z the sensor's keyed discrete Gaussian
	// noise; Value = r·2^−k (redundant; it must equal Grid·2^−k).
	Grid  int64   `json:"grid"`
	Value float64 `json:"value"`
	// MAC is hex HMAC-SHA256(K_mac, m), see SealReport.
	MAC string `json:"mac"`
}

// SensorKey returns node's sensor key under the master key
// (keyednoise.SensorKey): what is provisioned to the sensor of node.
func SensorKey(master [32]byte, node string) [32]byte { return keyednoise.SensorKey(&master, node) }

// ReportMACKey returns the report-MAC key of a sensor key:
//
//	K_mac = HMAC-SHA256(K_s, "graphcloak/report-mac/v1")
//
// The collector holds only these: it can authenticate reports, not
// regenerate noise.
func ReportMACKey(sensorKey [32]byte) []byte {
	h := hmac.New(sha256.New, sensorKey[:])
	h.Write([]byte("graphcloak/report-mac/v1"))
	return h.Sum(nil)
}

// reportMessage is m = lp("graphcloak/report/v2") ‖ lp(releaseId) ‖
// lp(scope) ‖ lp(epoch) ‖ lp(orderSha256) ‖ lp(node) ‖ i64be(grid).
func reportMessage(r *Report) []byte {
	lp := func(b []byte, s string) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		return append(b, s...)
	}
	m := lp(nil, "graphcloak/report/v2")
	m = lp(m, r.ReleaseID)
	m = lp(m, r.Scope)
	m = lp(m, r.Epoch)
	m = lp(m, r.OrderSHA256)
	m = lp(m, r.Node)
	return binary.BigEndian.AppendUint64(m, uint64(r.Grid))
}

// SealReport sets r.MAC = hex HMAC-SHA256(macKey, m) over the report's
// release id, scope, epoch, order digest, node and grid. Kind, version
// and the redundant value are not covered: Verify checks them separately.
func SealReport(macKey []byte, r *Report) {
	h := hmac.New(sha256.New, macKey)
	h.Write(reportMessage(r))
	r.MAC = hex.EncodeToString(h.Sum(nil))
}

// Verify checks a report against the node's report-MAC key and the
// order's grid exponent k: kind and version (a version 1 report is
// refused: OldReportError), an order digest of 64 lowercase hex digits,
// Value = Grid·2^−k exactly, and the MAC (constant-time comparison). It
// does not check that the report belongs to an order (Order.CheckReport).
func (r Report) Verify(macKey []byte, gridExponent int) error {
	if err := r.checkVersion(); err != nil {
		return err
	}
	if !isHex256(r.OrderSHA256) {
		return fmt.Errorf("%w: orderSha256 is not 64 lowercase hex digits", ErrBadReport)
	}
	if r.Value != math.Ldexp(float64(r.Grid), -gridExponent) {
		return fmt.Errorf("%w: value is not grid·2^-%d", ErrBadReport, gridExponent)
	}
	got, err := hex.DecodeString(r.MAC)
	if err != nil || len(got) != sha256.Size {
		return fmt.Errorf("%w: MAC is not 64 hex digits", ErrBadReport)
	}
	h := hmac.New(sha256.New, macKey)
	h.Write(reportMessage(&r))
	if !hmac.Equal(got, h.Sum(nil)) {
		return ErrBadMAC
	}
	return nil
}

// checkVersion refuses another kind or version, version 1 with the reason
// it is no longer accepted.
func (r Report) checkVersion() error {
	if r.Kind == ReportKind && r.Version == 1 {
		return errOldReport
	}
	if r.Kind != ReportKind || r.Version != ReportVersion {
		return fmt.Errorf("%w: kind %q version %d, want %q version %d", ErrBadReport, r.Kind, r.Version, ReportKind, ReportVersion)
	}
	return nil
}

// CheckReport checks that r answers o: the same release id, scope and
// epoch, and a node the order lists. It does not check the MAC (Verify)
// nor the order digest (the caller holds the order's signed bytes:
// OrderSHA256).
func (o Order) CheckReport(r Report) error {
	if r.ReleaseID != o.ReleaseID || r.Scope != o.Scope || r.Epoch != o.Epoch {
		return fmt.Errorf("%w: it answers release %q (scope %q, epoch %q), not this order's %q (scope %q, epoch %q)",
			ErrBadReport, r.ReleaseID, r.Scope, r.Epoch, o.ReleaseID, o.Scope, o.Epoch)
	}
	if !o.HasNode(r.Node) {
		return fmt.Errorf("%w: node %q is not in the order", ErrBadReport, r.Node)
	}
	return nil
}
