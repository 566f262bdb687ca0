package keyednoise

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
)

// KeySize is the size of a master key, a sensor key and a value key in
// bytes (256 bits).
const KeySize = 32

// Sampler versions. The sampler itself (Gaussian) is the same in all of
// them; they differ in how the value key is derived:
//
//   - Version 1: IKM = master key; info without a release id.
//   - Version 2: IKM = master key; info with the release id.
//   - Version 3: IKM = the node's sensor key K_s = SensorKey(master, node);
//     info with the release id. A sensor holding only K_s draws its own
//     noise, and the master-key holder draws the same noise centrally.
const (
	Version1 = 1
	Version2 = 2
	Version3 = 3
)

// Derivation constants (docs/local-sampler.md):
//
//	K_s  = HKDF-SHA256(IKM = master, salt = SensorSalt,
//	                   info = SensorInfo ‖ lp(node), L = 32)
//	PRK  = HKDF-Extract(SHA-256, salt = NoiseSalt, IKM)
//	       IKM = master (versions 1, 2) or K_s (version 3)
//	info = "graphcloak/noise/vN" ‖ [lp(release id), N ≥ 2] ‖ lp(scope)
//	       ‖ lp(epoch) ‖ u32(N) ‖ u64(σ̃²) ‖ u32(k) ‖ lp(node) ‖ u32(stream)
//	K    = HKDF-Expand(PRK, info, 32) = HMAC-SHA256(PRK, info ‖ 0x01)
//
// with lp(x) = u32(len(x)) ‖ x, big-endian integers, k as its 32-bit two's
// complement. K keys a ChaCha20 keystream (Stream).
const (
	NoiseSalt  = "graphcloak/noise/salt/v1"
	SensorSalt = "graphcloak/sensor/salt/v1"
	SensorInfo = "graphcloak/sensor-key/v1"
)

var infoPrefix = map[int]string{
	Version1: "graphcloak/noise/v1",
	Version2: "graphcloak/noise/v2",
	Version3: "graphcloak/noise/v3",
}

// Params fixes the noise of one release (one epoch).
type Params struct {
	// Version is the sampler version: Version1, Version2 or Version3.
	Version int
	// ReleaseID is the release's fresh random id (versions ≥ 2); Scope
	// and Epoch name the release.
	ReleaseID, Scope, Epoch string
	// GridVariance is the integer variance σ̃² = (σ/γ)², in
	// [1, MaxGridVariance]; GridExponent is k, the grid γ = 2^−k.
	GridVariance uint64
	GridExponent int
}

// Check reports a version this package does not implement or a grid
// variance outside [1, MaxGridVariance].
func (p Params) Check() error {
	if _, ok := infoPrefix[p.Version]; !ok {
		return fmt.Errorf("keyednoise: sampler version %d is unknown (this build implements 1, 2 and 3)", p.Version)
	}
	if p.GridVariance < 1 || p.GridVariance > MaxGridVariance {
		return fmt.Errorf("keyednoise: grid variance %d is outside [1, 2^50]", p.GridVariance)
	}
	return nil
}

func appendLP(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// SensorKey returns the sensor key of node under the master key:
//
//	K_s = HKDF-SHA256(IKM = master, salt = "graphcloak/sensor/salt/v1",
//	                  info = "graphcloak/sensor-key/v1" ‖ lp(node), L = 32)
//
// A sensor holding K_s can draw its own version 3 noise; it cannot learn
// the master key or any other node's key.
func SensorKey(master *[KeySize]byte, node string) [KeySize]byte {
	k, err := hkdf.Key(sha256.New, master[:], []byte(SensorSalt), string(appendLP([]byte(SensorInfo), node)), KeySize)
	if err != nil {
		panic("keyednoise: hkdf: " + err.Error()) // fixed sizes: cannot fail
	}
	return [KeySize]byte(k)
}

// Deriver derives the value keys of one release: K for (node, stream).
// It reuses its HMAC states, so a derivation costs a few HMAC-SHA256 of
// short messages; the result equals RFC 5869 HKDF (tested against
// crypto/hkdf). A Deriver is not safe for concurrent use.
type Deriver struct {
	version int
	mac     hash.Hash // HMAC(PRK, ·) when the IKM is fixed
	// Version 3 from the master key: the IKM (K_s) changes per node.
	sensorMAC hash.Hash // HMAC(PRK_sensor, ·), PRK_sensor = Extract(SensorSalt, master)
	saltMAC   hash.Hash // HMAC(NoiseSalt, ·): PRK = Extract(NoiseSalt, K_s)
	node      nodeMAC   // HMAC(PRK, ·) with PRK changing per node
	info      []byte    // fixed prefix; per-value suffix appended after it
	n         int       // length of the fixed prefix
	buf, out  []byte
}

// nodeMAC computes HMAC-SHA256 under a key that changes with every call
// (RFC 2104) with reused hash states: no allocation per node.
type nodeMAC struct {
	inner, outer hash.Hash
	pad          [sha256.BlockSize]byte
}

// sum returns HMAC-SHA256(key, msg ‖ 0x01) appended to out[:0]; key is at
// most one block.
func (m *nodeMAC) sum(key, msg, out []byte) []byte {
	if m.inner == nil {
		m.inner, m.outer = sha256.New(), sha256.New()
	}
	for i := range m.pad {
		m.pad[i] = 0x36
	}
	for i, b := range key {
		m.pad[i] ^= b
	}
	m.inner.Reset()
	m.inner.Write(m.pad[:])
	m.inner.Write(msg)
	m.inner.Write([]byte{1})
	for i := range m.pad {
		m.pad[i] ^= 0x36 ^ 0x5c
	}
	m.outer.Reset()
	m.outer.Write(m.pad[:])
	out = m.inner.Sum(out[:0])
	m.outer.Write(out)
	clear(m.pad[:])
	return m.outer.Sum(out[:0])
}

// NewDeriver prepares the derivation of the release p from the master
// key, for any version: for version 3 it derives each node's sensor key
// first, so it gives the same keys as NewSensorDeriver on each K_s.
func NewDeriver(master *[KeySize]byte, p Params) (*Deriver, error) {
	if _, ok := infoPrefix[p.Version]; !ok {
		return nil, p.Check()
	}
	d := &Deriver{version: p.Version}
	d.setInfo(p)
	if p.Version < Version3 {
		return d, d.keyPRK(master[:])
	}
	prk, err := hkdf.Extract(sha256.New, master[:], []byte(SensorSalt))
	if err != nil {
		return nil, fmt.Errorf("keyednoise: derive key: %w", err)
	}
	d.sensorMAC = hmac.New(sha256.New, prk)
	clear(prk)
	d.saltMAC = hmac.New(sha256.New, []byte(NoiseSalt))
	return d, nil
}

// NewSensorDeriver prepares the version 3 derivation of the release p
// from one node's sensor key K_s (what a sensor holds).
func NewSensorDeriver(sensorKey *[KeySize]byte, p Params) (*Deriver, error) {
	if p.Version != Version3 {
		return nil, fmt.Errorf("keyednoise: a sensor key derives sampler version 3 only, not %d", p.Version)
	}
	d := &Deriver{version: p.Version}
	d.setInfo(p)
	return d, d.keyPRK(sensorKey[:])
}

func (d *Deriver) keyPRK(ikm []byte) error {
	prk, err := hkdf.Extract(sha256.New, ikm, []byte(NoiseSalt))
	if err != nil {
		return fmt.Errorf("keyednoise: derive key: %w", err)
	}
	d.mac = hmac.New(sha256.New, prk)
	clear(prk)
	return nil
}

func (d *Deriver) setInfo(p Params) {
	info := []byte(infoPrefix[p.Version])
	if p.Version >= Version2 {
		info = appendLP(info, p.ReleaseID)
	}
	info = appendLP(info, p.Scope)
	info = appendLP(info, p.Epoch)
	info = binary.BigEndian.AppendUint32(info, uint32(p.Version))
	info = binary.BigEndian.AppendUint64(info, p.GridVariance)
	info = binary.BigEndian.AppendUint32(info, uint32(p.GridExponent))
	d.info, d.n = info, len(info)
}

// Info returns the HKDF info string of one value. The returned slice is
// reused by the next call.
func (d *Deriver) Info(node string, stream uint32) []byte {
	d.info = appendLP(d.info[:d.n], node)
	d.info = binary.BigEndian.AppendUint32(d.info, stream)
	return d.info
}

// Derive returns the value key K = HKDF-Expand(PRK, info, 32) of
// (node, stream). The returned slice is reused by the next call.
func (d *Deriver) Derive(node string, stream uint32) []byte {
	info := d.Info(node, stream)
	if d.sensorMAC != nil {
		// K_s = HKDF-Expand(PRK_sensor, SensorInfo ‖ lp(node), 32).
		d.buf = appendLP(append(d.buf[:0], SensorInfo...), node)
		d.buf = append(d.buf, 1)
		d.sensorMAC.Reset()
		d.sensorMAC.Write(d.buf)
		d.out = d.sensorMAC.Sum(d.out[:0])
		// PRK = HKDF-Extract(NoiseSalt, K_s) = HMAC(NoiseSalt, K_s).
		d.saltMAC.Reset()
		d.saltMAC.Write(d.out)
		d.out = d.saltMAC.Sum(d.out[:0])
		d.out = d.node.sum(d.out, info, d.out)
		clear(d.buf)
		return d.out
	}
	d.mac.Reset()
	d.mac.Write(info)
	d.mac.Write([]byte{1})
	d.out = d.mac.Sum(d.out[:0])
	return d.out
}
