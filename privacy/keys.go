package privacy

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
)

// KeySize is the size of a noise key in bytes (256 bits).
const KeySize = 32

// Key is a 256-bit noise key. Whoever holds it can regenerate, and so
// remove, every keyed noise value derived from it: the paper's "backdoor".
// Key never prints its bytes (fmt verbs show "privacy.Key(redacted)").
type Key [KeySize]byte

// Format implements fmt.Formatter so that a Key cannot leak into logs.
func (Key) Format(f fmt.State, _ rune) { io.WriteString(f, "privacy.Key(redacted)") }

// Fingerprint identifies k without revealing it: the first 16 hex digits
// of SHA-256 over a domain string and the key. A release records it so
// that unmask refuses another key instead of printing wrong values.
func (k Key) Fingerprint() string {
	h := sha256.Sum256(append([]byte("graphcloak/key-fingerprint/v1\x00"), k[:]...))
	return hex.EncodeToString(h[:8])
}

// GenerateKey returns a key from crypto/rand.
func GenerateKey() (Key, error) {
	var k Key
	if _, err := io.ReadFull(rand.Reader, k[:]); err != nil {
		return Key{}, fmt.Errorf("privacy: generate key: %w", err)
	}
	return k, nil
}

// Key file format: the 64 lowercase hex digits of the key followed by a
// newline, in a file of mode 0600. Hex rather than raw bytes so that a key
// can be moved through a terminal or a secret manager without corruption.

// WriteKeyFile writes k to path, creating it with mode 0600. It refuses to
// overwrite an existing file (O_EXCL). The data is fsynced before return.
func WriteKeyFile(path string, k Key) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("privacy: write key file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("privacy: write key file: %w", cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	// The umask may have cleared bits but never adds any; enforce 0600.
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("privacy: write key file: %w", err)
	}
	buf := make([]byte, 2*KeySize+1)
	hex.Encode(buf, k[:])
	buf[2*KeySize] = '\n'
	if _, err := f.Write(buf); err != nil {
		return fmt.Errorf("privacy: write key file: %w", err)
	}
	return f.Sync()
}

// KeyPermissionError reports a key file that group or others may access.
type KeyPermissionError struct {
	Path string
	Mode fs.FileMode
}

func (e *KeyPermissionError) Error() string {
	return fmt.Sprintf("privacy: key file %s has mode %04o: it must not be accessible by group or others (chmod 600)",
		e.Path, uint32(e.Mode.Perm()))
}

// ErrBadKeyFile is wrapped when a key file is not 64 hex digits.
var ErrBadKeyFile = errkind.New(errkind.BadInput, "privacy: malformed key file (want 64 hex digits)")

// LoadKey reads a key written by WriteKeyFile. It refuses, with
// *KeyPermissionError, a file with any group or other permission bit set,
// and refuses anything that is not a regular file of 64 hex digits
// (optionally followed by a newline). Errors never contain key material.
func LoadKey(path string) (Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return Key{}, fmt.Errorf("privacy: load key: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Key{}, fmt.Errorf("privacy: load key: %w", err)
	}
	if !st.Mode().IsRegular() {
		return Key{}, fmt.Errorf("noise key %s: %w", path, ErrKeyNotRegular)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return Key{}, &KeyPermissionError{Path: path, Mode: st.Mode()}
	}
	data, err := io.ReadAll(io.LimitReader(f, 4*KeySize))
	if err != nil {
		return Key{}, fmt.Errorf("privacy: load key: %w", err)
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	var k Key
	if len(data) != 2*KeySize {
		return Key{}, fmt.Errorf("%w: %s", ErrBadKeyFile, path)
	}
	if _, err := hex.Decode(k[:], data); err != nil {
		return Key{}, fmt.Errorf("%w: %s", ErrBadKeyFile, path)
	}
	return k, nil
}

// Key derivation: package keyednoise (keyednoise.Params and Deriver,
// specified in docs/local-sampler.md). Version 3, the current one:
//
//	K_s  = HKDF-SHA256(IKM = key, salt = "graphcloak/sensor/salt/v1",
//	                   info = "graphcloak/sensor-key/v1" ‖ lp(node key))
//	PRK  = HKDF-Extract(SHA-256, salt = "graphcloak/noise/salt/v1", IKM = K_s)
//	info = "graphcloak/noise/v3" ‖ lp(release id) ‖ lp(scope) ‖ lp(epoch)
//	       ‖ u32(SamplerVersion) ‖ u64(σ̃²) ‖ u32(k) ‖ lp(node key) ‖ u32(stream)
//	K    = HKDF-Expand(PRK, info, 32)            (RFC 5869)
//
// with lp(x) = u32(len(x)) ‖ x and big-endian integers, so the encoding is
// unambiguous. Version 2 is the same with IKM = key and the prefix
// "graphcloak/noise/v2"; version 1 had no release id. The release id is a
// fresh crypto-random value per release (NewReleaseID): it makes the
// scheme nonce-misuse resistant, since two releases never share noise
// whatever scopes, epochs or ledgers an operator reused. (Version 1 had no
// release id, so two keyed releases of different readings under the same
// scope and epoch differed by exactly the difference of the readings; it
// is still accepted by Unmask.) σ̃² = (σ/γ)² is the sampler's integer
// variance and k the grid exponent (γ = 2^−k): a different σ or grid never
// reuses uniforms. K keys a ChaCha20 keystream (RFC 8439, zero nonce:
// every K is used for one value only) read as little-endian uint64 words.

// ReleaseIDBytes is the size of a release id's randomness (128 bits).
const ReleaseIDBytes = 16

// NewReleaseID returns a fresh release id: 128 bits from crypto/rand as
// "rel-" followed by 32 lowercase hex digits. It is public.
func NewReleaseID() string {
	var b [ReleaseIDBytes]byte
	rand.Read(b[:]) // never fails since Go 1.24
	return "rel-" + hex.EncodeToString(b[:])
}

// checkReleaseID refuses a release id that cannot carry 128 random bits.
func checkReleaseID(fn, id string) error {
	h, ok := strings.CutPrefix(id, "rel-")
	if b, err := hex.DecodeString(h); !ok || err != nil || len(b) < ReleaseIDBytes {
		return &ArgumentError{Func: fn, Param: "release id", Value: id, Reason: "must be \"rel-\" and at least 32 hex digits (NewReleaseID)"}
	}
	return nil
}
