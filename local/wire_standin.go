package local

// STAND-IN: the wire types of issue 58 as agreed in the local protocol
// brief, until the sensor package (branch local-sensor) lands; then this
// file is deleted and local uses sensor.Order, sensor.Report,
// sensor.SignOrder, sensor.VerifyOrder and Report.Verify.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"
)

type Order struct {
	Version              int        `json:"version"`
	Kind                 string     `json:"kind"`
	Graph                OrderGraph `json:"graph"`
	Tau                  float64    `json:"tau"`
	Alpha                float64    `json:"alpha"`
	Epsilon              float64    `json:"epsilon"`
	Delta                float64    `json:"delta"`
	Sensitivity          float64    `json:"sensitivity"`
	CertificateDigest    string     `json:"certificateDigest"`
	EffectiveSensitivity float64    `json:"effectiveSensitivity"`
	Rho                  float64    `json:"rho"`
	Sampler              Sampler    `json:"sampler"`
	ReleaseID            string     `json:"releaseId"`
	Scope                string     `json:"scope"`
	Epoch                string     `json:"epoch"`
	NotBefore            time.Time  `json:"notBefore"`
	NotAfter             time.Time  `json:"notAfter"`
	Nodes                []string   `json:"nodes"`
	CoordinatorKey       string     `json:"coordinatorKey"`
}

type OrderGraph struct {
	NodeCount         int    `json:"nodeCount"`
	RelationshipCount int    `json:"relationshipCount"`
	SHA256            string `json:"sha256"`
}

type Sampler struct {
	Version      int     `json:"version"`
	GridExponent int     `json:"gridExponent"`
	GridVariance uint64  `json:"gridVariance"`
	Sigma        float64 `json:"sigma"`
}

const (
	OrderKind  = "graphcloak.epoch-order"
	ReportKind = "graphcloak.report"
)

type envelope struct {
	Order     json.RawMessage `json:"order"`
	Signature string          `json:"signature"`
}

func SignOrder(priv ed25519.PrivateKey, o Order) ([]byte, error) {
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	sig := ed25519.Sign(priv, raw)
	return json.Marshal(envelope{Order: raw, Signature: base64.StdEncoding.EncodeToString(sig)})
}

func VerifyOrder(pub ed25519.PublicKey, env []byte) (Order, error) {
	var e envelope
	if err := json.Unmarshal(env, &e); err != nil {
		return Order{}, fmt.Errorf("sensor: order: %v", err)
	}
	sig, err := base64.StdEncoding.DecodeString(e.Signature)
	if err != nil || !ed25519.Verify(pub, e.Order, sig) {
		return Order{}, errors.New("sensor: order: bad signature")
	}
	var o Order
	dec := json.NewDecoder(bytes.NewReader(e.Order))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return Order{}, fmt.Errorf("sensor: order: %v", err)
	}
	return o, nil
}

type Report struct {
	Kind      string  `json:"kind"`
	Version   int     `json:"version"`
	Node      string  `json:"node"`
	Scope     string  `json:"scope"`
	Epoch     string  `json:"epoch"`
	ReleaseID string  `json:"releaseId"`
	Grid      int64   `json:"grid"`
	Value     float64 `json:"value"`
	MAC       string  `json:"mac"`
}

func lp(b *bytes.Buffer, s string) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(s)))
	b.Write(n[:])
	b.WriteString(s)
}

func reportMAC(macKey []byte, r Report) []byte {
	var m bytes.Buffer
	lp(&m, "graphcloak/report/v1")
	lp(&m, r.ReleaseID)
	lp(&m, r.Scope)
	lp(&m, r.Epoch)
	lp(&m, r.Node)
	var g [8]byte
	binary.BigEndian.PutUint64(g[:], uint64(r.Grid))
	m.Write(g[:])
	h := hmac.New(sha256.New, macKey)
	h.Write(m.Bytes())
	return h.Sum(nil)
}

func (r Report) Verify(macKey []byte, k int) error {
	if r.Value != math.Ldexp(float64(r.Grid), -k) {
		return errors.New("sensor: report: value is not grid·2^-k")
	}
	got, err := hex.DecodeString(r.MAC)
	if err != nil || !hmac.Equal(got, reportMAC(macKey, r)) {
		return errors.New("sensor: report: bad MAC")
	}
	return nil
}

// ReportMACKey is K_mac = HMAC-SHA256(K_s, "graphcloak/report-mac/v1").
func ReportMACKey(sensorKey [32]byte) []byte {
	h := hmac.New(sha256.New, sensorKey[:])
	h.Write([]byte("graphcloak/report-mac/v1"))
	return h.Sum(nil)
}

// SealReport sets r.MAC (a test helper of the stand-in).
func SealReport(macKey []byte, r *Report) { r.MAC = hex.EncodeToString(reportMAC(macKey, *r)) }

// LoadSigningKey reads a coordinator signing key file (hex of the 32-byte
// Ed25519 seed, mode 0600).
func LoadSigningKey(path string) (ed25519.PrivateKey, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("sensor: signing key: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("sensor: signing key %s has mode %04o: it must not be accessible by group or others (chmod 600)", path, st.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sensor: signing key: %w", err)
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("sensor: signing key %s: want 64 hex digits", path)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// LoadPublicKey reads a coordinator public key file (hex of the 32-byte
// Ed25519 public key).
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sensor: coordinator key: %w", err)
	}
	pub, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("sensor: coordinator key %s: want 64 hex digits", path)
	}
	return ed25519.PublicKey(pub), nil
}
