package sensor

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/keyednoise"
)

// Kinds and versions of the wire objects.
const (
	OrderKind     = "graphcloak.epoch-order"
	OrderVersion  = 1
	ReportKind    = "graphcloak.report"
	ReportVersion = 2
)

// MaxOrderString is the longest string an order holds (bytes): its scope,
// epoch, release id, every node key and each of its digests and keys. A
// sensor records the scope, epoch and release id of every report for good
// (odometer) and puts them and its node key in each report.
const MaxOrderString = 256

// MaxOrderBytes bounds the size of an order envelope VerifyOrder reads
// (64 MiB: about a million node keys).
const MaxOrderBytes = 64 << 20

// Order is an epoch order: what the coordinator asks every sensor to
// report, signed with its Ed25519 key (SignOrder, VerifyOrder). Everything
// in it is public.
type Order struct {
	Version int    `json:"version"` // OrderVersion
	Kind    string `json:"kind"`    // OrderKind
	// Graph is the fingerprint of the public graph the sensitivity was
	// certified for (laplacian.Fingerprint's JSON).
	Graph OrderGraph `json:"graph"`
	// Tau and Alpha are the diffusion time and the neighbouring radius;
	// Epsilon and Delta the (ε, δ) of the epoch's release.
	Tau     float64 `json:"tau"`
	Alpha   float64 `json:"alpha"`
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
	// Sensitivity is the certified Δ2; CertificateDigest the hex digest of
	// its certificate ("" if none); EffectiveSensitivity Δ + γ√n; Rho the
	// zCDP cost the coordinator charged its ledger.
	Sensitivity          float64 `json:"sensitivity"`
	CertificateDigest    string  `json:"certificateDigest"`
	EffectiveSensitivity float64 `json:"effectiveSensitivity"`
	Rho                  float64 `json:"rho"`
	Sampler              Sampler `json:"sampler"`
	// ReleaseID is fresh from crypto/rand ("rel-" + 32 hex digits); Scope
	// and Epoch name the epoch charged once.
	ReleaseID string `json:"releaseId"`
	Scope     string `json:"scope"`
	Epoch     string `json:"epoch"`
	// NotBefore and NotAfter bound when a sensor reports (RFC 3339, UTC).
	NotBefore time.Time `json:"notBefore"`
	NotAfter  time.Time `json:"notAfter"`
	// Nodes are the node keys expected to report, unique.
	Nodes []string `json:"nodes"`
	// CoordinatorKey is the hex Ed25519 public key that signed the order,
	// informational: a sensor trusts only the key it was provisioned with.
	CoordinatorKey string `json:"coordinatorKey"`
	// KeyFingerprint is the master key's fingerprint (privacy.Key
	// .Fingerprint), optional and informational: the collector copies it
	// into the release so that unmask refuses another key. Sensors cannot
	// check it (they hold their sensor key only).
	KeyFingerprint string `json:"keyFingerprint,omitempty"`
}

// OrderGraph is laplacian.Fingerprint's JSON.
type OrderGraph struct {
	NodeCount         int    `json:"nodeCount"`
	RelationshipCount int    `json:"relationshipCount"`
	SHA256            string `json:"sha256"`
}

// Sampler fixes the noise: the sampler version (one of Mechanisms'), the grid γ = 2^−k and the
// integer variance σ̃²; Sigma = γ·√σ̃² is informational (a sensor computes
// σ from GridExponent and GridVariance itself).
type Sampler struct {
	Version      int     `json:"version"`
	GridExponent int     `json:"gridExponent"`
	GridVariance uint64  `json:"gridVariance"`
	Sigma        float64 `json:"sigma"`
}

// Sigma returns the noise's standard deviation γ·√σ̃² as the sensor
// computes it from the grid, whatever the order's Sampler.Sigma says.
func (o Order) Sigma() float64 {
	return math.Ldexp(math.Sqrt(float64(o.Sampler.GridVariance)), -o.Sampler.GridExponent)
}

// NoiseParams returns the keyed-noise parameters of the order.
func (o Order) NoiseParams() keyednoise.Params {
	return keyednoise.Params{Version: o.Sampler.Version, ReleaseID: o.ReleaseID, Scope: o.Scope, Epoch: o.Epoch,
		GridVariance: o.Sampler.GridVariance, GridExponent: o.Sampler.GridExponent}
}

// HasNode reports whether node is one of the order's nodes.
func (o Order) HasNode(node string) bool {
	for _, n := range o.Nodes {
		if n == node {
			return true
		}
	}
	return false
}

// CheckTime refuses an order outside its validity window at now:
// NotBefore ≤ now < NotAfter.
func (o Order) CheckTime(now time.Time) error {
	if now.Before(o.NotBefore) || !now.Before(o.NotAfter) {
		return &ExpiredError{Now: now.UTC(), NotBefore: o.NotBefore, NotAfter: o.NotAfter}
	}
	return nil
}

// Check refuses an order that is not well formed: kind and version,
// a sampler version a sensor draws (Mechanisms) with 1 ≤ σ̃² ≤ 2^50 and −60 ≤ k ≤ 60, a release id of
// 128 random bits, scope and epoch, finite positive ε, Δ2, Δ_eff and ρ,
// 0 < δ < 1, a validity window, unique non-empty node keys, and no string
// longer than MaxOrderString bytes.
func (o Order) Check() error {
	if err := o.checkStrings(); err != nil {
		return err
	}
	bad := func(format string, a ...any) error { return &OrderError{Reason: fmt.Sprintf(format, a...)} }
	pos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	switch {
	case o.Kind != OrderKind || o.Version != OrderVersion:
		return bad("kind %q version %d, want %q version %d", o.Kind, o.Version, OrderKind, OrderVersion)
	case !drawsSampler(o.Sampler.Version):
		return bad("sampler version %d, want %s", o.Sampler.Version, samplerVersions())
	case o.Sampler.GridVariance < 1 || o.Sampler.GridVariance > keyednoise.MaxGridVariance:
		return bad("grid variance %d outside [1, 2^50]", o.Sampler.GridVariance)
	case o.Sampler.GridExponent < -60 || o.Sampler.GridExponent > 60:
		return bad("grid exponent %d outside [-60, 60]", o.Sampler.GridExponent)
	case !validReleaseID(o.ReleaseID):
		return bad("release id %q is not \"rel-\" and 32 or more hex digits", o.ReleaseID)
	case o.Scope == "" || o.Epoch == "":
		return bad("scope and epoch must not be empty")
	case !pos(o.Epsilon) || !(o.Delta > 0 && o.Delta < 1):
		return bad("ε = %v, δ = %v: want ε > 0 finite and 0 < δ < 1", o.Epsilon, o.Delta)
	case !pos(o.Sensitivity) || !pos(o.EffectiveSensitivity) || !pos(o.Rho):
		return bad("sensitivity %v, effective sensitivity %v, ρ %v: each must be finite and > 0", o.Sensitivity, o.EffectiveSensitivity, o.Rho)
	case o.NotBefore.IsZero() || !o.NotBefore.Before(o.NotAfter):
		return bad("validity window [%s, %s) is empty", o.NotBefore.Format(time.RFC3339), o.NotAfter.Format(time.RFC3339))
	case len(o.Nodes) == 0:
		return bad("lists no nodes")
	}
	seen := make(map[string]struct{}, len(o.Nodes))
	for i, n := range o.Nodes {
		if n == "" {
			return bad("node %d is empty", i)
		}
		if _, dup := seen[n]; dup {
			return bad("node %q is listed twice", n)
		}
		seen[n] = struct{}{}
	}
	return nil
}

// checkStrings refuses a string of the order longer than MaxOrderString
// bytes, naming its member.
func (o Order) checkStrings() error {
	for _, f := range []struct{ name, s string }{{"scope", o.Scope}, {"epoch", o.Epoch}, {"releaseId", o.ReleaseID},
		{"graph.sha256", o.Graph.SHA256}, {"certificateDigest", o.CertificateDigest}, {"coordinatorKey", o.CoordinatorKey},
		{"keyFingerprint", o.KeyFingerprint}, {"kind", o.Kind}} {
		if len(f.s) > MaxOrderString {
			return &OrderError{Reason: fmt.Sprintf("%s is %d bytes, longer than the %d an order allows", f.name, len(f.s), MaxOrderString)}
		}
	}
	for i, n := range o.Nodes {
		if len(n) > MaxOrderString {
			return &OrderError{Reason: fmt.Sprintf("nodes[%d] is %d bytes, longer than the %d an order allows", i, len(n), MaxOrderString)}
		}
	}
	return nil
}

func validReleaseID(id string) bool {
	h, ok := strings.CutPrefix(id, "rel-")
	b, err := hex.DecodeString(h)
	return ok && err == nil && len(b) >= 16
}

// envelope is the signed order file: the order's raw bytes and the
// Ed25519 signature (standard base64) over exactly those bytes.
type envelope struct {
	Order     json.RawMessage `json:"order"`
	Signature string          `json:"signature"`
}

// SignOrder checks o (Check), encodes it as compact JSON and returns the
// envelope {"order": …, "signature": …} signed with priv, one line ending
// in a newline. It never indents the envelope: the order's bytes are what
// the signature covers.
func SignOrder(priv ed25519.PrivateKey, o Order) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("sensor: sign order: private key has %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("sensor: sign order: %w", err)
	}
	sig := ed25519.Sign(priv, raw)
	out, err := json.Marshal(envelope{Order: raw, Signature: base64.StdEncoding.EncodeToString(sig)})
	if err != nil {
		return nil, fmt.Errorf("sensor: sign order: %w", err)
	}
	return append(out, '\n'), nil
}

// VerifyOrder verifies an order envelope against the coordinator public
// key pub and returns the order: the envelope is parsed strictly (unknown
// fields refused), the signature is checked over the raw bytes of its
// "order" member, and only then are those bytes parsed (strictly) and
// checked (Order.Check). It does not check the validity window
// (CheckTime) or the node list: the caller knows its clock and node.
func VerifyOrder(pub ed25519.PublicKey, env []byte) (Order, error) {
	o, _, err := verifyOrderDigest(pub, env)
	return o, err
}

// verifyOrderDigest is VerifyOrder, also returning the hex SHA-256 of the
// order's signed bytes: what tells a retry (the same order) from another.
func verifyOrderDigest(pub ed25519.PublicKey, env []byte) (Order, string, error) {
	o, raw, err := verifyOrderRaw(pub, env)
	if err != nil {
		return Order{}, "", err
	}
	sum := sha256.Sum256(raw)
	return o, hex.EncodeToString(sum[:]), nil
}

// OrderSHA256 returns the hex SHA-256 of the signed bytes of the order in
// the envelope env — its "order" member's value exactly as it appears —
// which a report's orderSha256 names (a collector refuses a report of
// any other order). It does not verify the signature (VerifyOrder does).
func OrderSHA256(env []byte) (string, error) {
	var e envelope
	if err := decodeStrict(env, &e); err != nil || len(e.Order) == 0 {
		return "", &OrderError{Reason: "is not an order envelope"}
	}
	sum := sha256.Sum256(e.Order)
	return hex.EncodeToString(sum[:]), nil
}

func verifyOrderRaw(pub ed25519.PublicKey, env []byte) (Order, []byte, error) {
	if len(pub) != ed25519.PublicKeySize {
		return Order{}, nil, fmt.Errorf("sensor: verify order: public key has %d bytes, want %d", len(pub), ed25519.PublicKeySize)
	}
	if len(env) > MaxOrderBytes {
		return Order{}, nil, &OrderError{Reason: fmt.Sprintf("is larger than %d bytes", MaxOrderBytes)}
	}
	var e envelope
	if err := decodeStrict(env, &e); err != nil {
		return Order{}, nil, &OrderError{Reason: "is not an order envelope: " + err.Error()}
	}
	if err := checkKeys(env, nil, map[string]reflect.Type{"order": reflect.TypeOf(Order{}), "signature": reflect.TypeOf("")}); err != nil {
		return Order{}, nil, &OrderError{Reason: "is not an order envelope: " + err.Error()}
	}
	if len(e.Order) == 0 || e.Signature == "" {
		return Order{}, nil, &OrderError{Reason: "has no order or no signature"}
	}
	sig, err := base64.StdEncoding.DecodeString(e.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Order{}, nil, &OrderError{Reason: "signature is not 64 bytes of standard base64"}
	}
	if !ed25519.Verify(pub, e.Order, sig) {
		return Order{}, nil, ErrBadSignature
	}
	var o Order
	if err := decodeStrict(e.Order, &o); err != nil {
		return Order{}, nil, &OrderError{Reason: "signed but not a valid order: " + err.Error()}
	}
	if err := o.Check(); err != nil {
		return Order{}, nil, err
	}
	return o, e.Order, nil
}

// decodeStrict decodes exactly one JSON value with no unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}
