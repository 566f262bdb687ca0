package sensor

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// testCoordinator is a deterministic Ed25519 key for tests.
func testCoordinator(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("sensor test coordinator " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

func testOrder() Order {
	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	return Order{
		Version: OrderVersion, Kind: OrderKind,
		Graph: OrderGraph{NodeCount: 4, RelationshipCount: 3, SHA256: strings.Repeat("ab", 32)},
		Tau:   0.5, Alpha: 1, Epsilon: 1, Delta: 1e-5, Sensitivity: 0.25, EffectiveSensitivity: 0.2500019,
		Rho: 0.0181, Sampler: Sampler{Version: 3, GridExponent: 16, GridVariance: 1 << 40, Sigma: 16},
		ReleaseID: "rel-00112233445566778899aabbccddeeff", Scope: "building-7", Epoch: "2026-11-27T06",
		NotBefore: t0, NotAfter: t0.Add(time.Hour), Nodes: []string{"n1", "n2", "n3", "n4"},
	}
}

func TestSignVerifyOrder(t *testing.T) {
	priv := testCoordinator("a")
	pub := priv.Public().(ed25519.PublicKey)
	o := testOrder()
	o.CoordinatorKey = hex.EncodeToString(pub)
	env, err := SignOrder(priv, o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := VerifyOrder(pub, env)
	if err != nil {
		t.Fatal(err)
	}
	if !got.NotBefore.Equal(o.NotBefore) || got.ReleaseID != o.ReleaseID || len(got.Nodes) != 4 || got.Sampler != o.Sampler {
		t.Errorf("round trip changed the order: %+v", got)
	}
	// The signature is over the raw order bytes, checked independently.
	var e struct {
		Order     json.RawMessage
		Signature string
	}
	json.Unmarshal(env, &e)
	sig, _ := base64.StdEncoding.DecodeString(e.Signature)
	if !ed25519.Verify(pub, e.Order, sig) {
		t.Error("signature does not verify over the raw order member")
	}

	other := testCoordinator("b").Public().(ed25519.PublicKey)
	tamper := func(from, to string) []byte { return bytes.Replace(env, []byte(from), []byte(to), 1) }
	cases := []struct {
		name string
		pub  ed25519.PublicKey
		env  []byte
		want error
	}{
		{"other coordinator key", other, env, ErrBadSignature},
		{"tampered epsilon", pub, tamper(`"epsilon":1`, `"epsilon":9`), ErrBadSignature},
		{"tampered node", pub, tamper(`"n4"`, `"n5"`), ErrBadSignature},
		{"whitespace in order", pub, tamper(`{"version"`, `{ "version"`), ErrBadSignature},
		{"not JSON", pub, []byte("hello"), ErrOrder},
		{"unknown envelope field", pub, tamper(`"signature"`, `"x":1,"signature"`), ErrOrder},
		{"trailing data", pub, append(append([]byte(nil), env...), "{}"...), ErrOrder},
		{"no signature", pub, tamper(`"signature":"`, `"signature":"`+"!"), ErrOrder},
		{"empty", pub, nil, ErrOrder},
	}
	for _, c := range cases {
		if _, err := VerifyOrder(c.pub, c.env); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// A well-signed order with an unknown field or a bad parameter is
	// refused after the signature.
	raw, _ := json.Marshal(o)
	raw = bytes.Replace(raw, []byte(`"version":1,`), []byte(`"version":1,"extra":true,`), 1)
	s := ed25519.Sign(priv, raw)
	forged, _ := json.Marshal(map[string]any{"order": json.RawMessage(raw), "signature": base64.StdEncoding.EncodeToString(s)})
	if _, err := VerifyOrder(pub, forged); !errors.Is(err, ErrOrder) || errors.Is(err, ErrBadSignature) {
		t.Errorf("unknown order field: %v", err)
	}
}

func TestOrderCheck(t *testing.T) {
	for name, mut := range map[string]func(*Order){
		"kind":           func(o *Order) { o.Kind = "x" },
		"version":        func(o *Order) { o.Version = 2 },
		"sampler v2":     func(o *Order) { o.Sampler.Version = 2 },
		"variance 0":     func(o *Order) { o.Sampler.GridVariance = 0 },
		"variance big":   func(o *Order) { o.Sampler.GridVariance = 1<<50 + 1 },
		"grid":           func(o *Order) { o.Sampler.GridExponent = 61 },
		"release id":     func(o *Order) { o.ReleaseID = "rel-0011" },
		"scope":          func(o *Order) { o.Scope = "" },
		"epsilon":        func(o *Order) { o.Epsilon = math.Inf(1) },
		"delta":          func(o *Order) { o.Delta = 1 },
		"rho":            func(o *Order) { o.Rho = 0 },
		"sensitivity":    func(o *Order) { o.Sensitivity = math.NaN() },
		"window":         func(o *Order) { o.NotAfter = o.NotBefore },
		"no nodes":       func(o *Order) { o.Nodes = nil },
		"duplicate node": func(o *Order) { o.Nodes = []string{"a", "b", "a"} },
		"empty node":     func(o *Order) { o.Nodes = []string{"a", ""} },
	} {
		o := testOrder()
		mut(&o)
		if err := o.Check(); !errors.Is(err, ErrOrder) {
			t.Errorf("%s: Check = %v", name, err)
		}
		if _, err := SignOrder(testCoordinator("a"), o); err == nil {
			t.Errorf("%s: SignOrder signed it", name)
		}
	}
	o := testOrder()
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at time.Time
		ok bool
	}{{o.NotBefore, true}, {o.NotBefore.Add(-time.Second), false}, {o.NotAfter.Add(-time.Nanosecond), true}, {o.NotAfter, false}} {
		if err := o.CheckTime(c.at); (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrExpired)) {
			t.Errorf("CheckTime(%s) = %v", c.at, err)
		}
	}
}

// The MAC is HMAC-SHA256 over the documented message, built here by hand.
func TestReportMAC(t *testing.T) {
	var ks [32]byte
	copy(ks[:], "a sensor key")
	mk := ReportMACKey(ks)
	h := hmac.New(sha256.New, ks[:])
	h.Write([]byte("graphcloak/report-mac/v1"))
	if !bytes.Equal(mk, h.Sum(nil)) {
		t.Fatal("ReportMACKey")
	}
	d := strings.Repeat("0f", 32)
	r := Report{Kind: ReportKind, Version: 2, Node: "n1", Scope: "s", Epoch: "e", ReleaseID: "rel-x", OrderSHA256: d, Grid: -5, Value: math.Ldexp(-5, -3)}
	SealReport(mk, &r)
	m := "\x00\x00\x00\x14graphcloak/report/v2" + "\x00\x00\x00\x05rel-x" + "\x00\x00\x00\x01s" + "\x00\x00\x00\x01e" + "\x00\x00\x00\x40" + d +
		"\x00\x00\x00\x02n1" + "\xff\xff\xff\xff\xff\xff\xff\xfb"
	h = hmac.New(sha256.New, mk)
	h.Write([]byte(m))
	if r.MAC != hex.EncodeToString(h.Sum(nil)) {
		t.Fatalf("MAC %s is not HMAC over the documented message", r.MAC)
	}
	if err := r.Verify(mk, 3); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Report){
		"grid":      func(r *Report) { r.Grid++; r.Value = math.Ldexp(float64(r.Grid), -3) },
		"node":      func(r *Report) { r.Node = "n2" },
		"epoch":     func(r *Report) { r.Epoch = "e2" },
		"release":   func(r *Report) { r.ReleaseID = "rel-y" },
		"scope":     func(r *Report) { r.Scope = "t" },
		"mac":       func(r *Report) { r.MAC = strings.Repeat("0", 64) },
		"short mac": func(r *Report) { r.MAC = "00" },
		"value":     func(r *Report) { r.Value += 1 },
		"kind":      func(r *Report) { r.Kind = "x" },
		"order":     func(r *Report) { r.OrderSHA256 = strings.Repeat("0e", 32) },
		"no order":  func(r *Report) { r.OrderSHA256 = "" },
		"ORDER":     func(r *Report) { r.OrderSHA256 = strings.ToUpper(r.OrderSHA256) },
		"version 1": func(r *Report) { r.Version = 1 },
		"version 3": func(r *Report) { r.Version = 3 },
	} {
		c := r
		mut(&c)
		if err := c.Verify(mk, 3); !errors.Is(err, ErrBadReport) {
			t.Errorf("%s: Verify = %v", name, err)
		}
	}
	// A version 1 report — sealed over the version 1 message, which has no
	// order digest — is refused as such, with the reason.
	old := r
	old.Version, old.OrderSHA256 = 1, ""
	h = hmac.New(sha256.New, mk)
	h.Write([]byte("\x00\x00\x00\x14graphcloak/report/v1" + "\x00\x00\x00\x05rel-x" + "\x00\x00\x00\x01s" + "\x00\x00\x00\x01e" + "\x00\x00\x00\x02n1" +
		"\xff\xff\xff\xff\xff\xff\xff\xfb"))
	old.MAC = hex.EncodeToString(h.Sum(nil))
	if err := old.Verify(mk, 3); !errors.Is(err, errOldReport) || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("a version 1 report: Verify = %v, want errOldReport", err)
	}
	if err := r.Verify(ReportMACKey([32]byte{1}), 3); !errors.Is(err, ErrBadMAC) {
		t.Errorf("other key: %v", err)
	}
	if err := r.Verify(mk, 4); !errors.Is(err, ErrBadReport) {
		t.Errorf("other grid exponent: %v", err)
	}
}

// Every free string of an order is at most MaxOrderString bytes: at the
// limit the order is signed, one byte over it is refused with an error
// naming the member and the limit.
func TestOrderStringsCapped(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	for name, set := range map[string]func(*Order, string){
		"scope":             func(o *Order, s string) { o.Scope = s },
		"epoch":             func(o *Order, s string) { o.Epoch = s },
		"releaseId":         func(o *Order, s string) { o.ReleaseID = "rel-" + s[4:] },
		"graph.sha256":      func(o *Order, s string) { o.Graph.SHA256 = s },
		"certificateDigest": func(o *Order, s string) { o.CertificateDigest = s },
		"coordinatorKey":    func(o *Order, s string) { o.CoordinatorKey = s },
		"keyFingerprint":    func(o *Order, s string) { o.KeyFingerprint = s },
		"nodes[2]":          func(o *Order, s string) { o.Nodes[2] = s },
	} {
		at := testOrder()
		set(&at, long(MaxOrderString))
		if name == "releaseId" {
			at.ReleaseID = "rel-" + strings.Repeat("ab", (MaxOrderString-4)/2) // 256 bytes of hex
		}
		if _, err := SignOrder(testCoordinator("a"), at); err != nil {
			t.Errorf("%s of %d bytes: %v", name, MaxOrderString, err)
		}
		over := testOrder()
		set(&over, long(MaxOrderString+1))
		if name == "releaseId" {
			over.ReleaseID = "rel-" + strings.Repeat("ab", (MaxOrderString-4)/2) + "ab" // 258 bytes, valid hex
		}
		err := over.Check()
		if !errors.Is(err, ErrOrder) || !strings.Contains(err.Error(), name+" is ") || !strings.Contains(err.Error(), "256") {
			t.Errorf("%s over %d bytes: Check = %v, want a refusal naming %s and the limit", name, MaxOrderString, err, name)
		}
	}
}
