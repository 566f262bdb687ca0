package sensor

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// Coordinator signing key files: the private key is the hex of its
// 32-byte Ed25519 seed and a newline, mode 0600 (refused if group or
// others may access it); the public key, in PATH.pub, is the hex of the
// 32-byte public key and a newline, mode 0644. A sensor is provisioned
// with the .pub file only.

// ErrKeyFile is wrapped when a signing or public key file is malformed.
var ErrKeyFile = errors.New("sensor: malformed key file (want 64 hex digits)")

// GenerateSigningKey creates a coordinator key pair from crypto/rand and
// writes the private key to path and the public key to path + ".pub",
// never over existing files (O_EXCL). It returns the public key.
func GenerateSigningKey(path string) (ed25519.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sensor: generate signing key: %w", err)
	}
	seed := priv.Seed()
	defer clear(seed)
	if err := writeHexFile(path, seed, 0o600); err != nil {
		return nil, err
	}
	if err := writeHexFile(path+".pub", pub, 0o644); err != nil {
		os.Remove(path)
		return nil, err
	}
	return pub, nil
}

func writeHexFile(path string, b []byte, perm os.FileMode) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("sensor: write key file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("sensor: write key file: %w", cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("sensor: write key file: %w", err)
	}
	if _, err = f.Write([]byte(hex.EncodeToString(b) + "\n")); err != nil {
		return fmt.Errorf("sensor: write key file: %w", err)
	}
	return f.Sync()
}

func readHex32(path string, private bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sensor: read key: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("sensor: read key: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrKeyFile, path)
	}
	if private && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("sensor: signing key file %s has mode %04o: it must not be accessible by group or others", path, uint32(st.Mode().Perm()))
	}
	data, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return nil, fmt.Errorf("sensor: read key: %w", err)
	}
	b, err := hex.DecodeString(string(bytes.TrimSpace(data)))
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%w: %s", ErrKeyFile, path)
	}
	return b, nil
}

// LoadSigningKey reads a coordinator private key written by
// GenerateSigningKey (mode 0600 required).
func LoadSigningKey(path string) (ed25519.PrivateKey, error) {
	seed, err := readHex32(path, true)
	if err != nil {
		return nil, err
	}
	defer clear(seed)
	return ed25519.NewKeyFromSeed(seed), nil
}

// LoadCoordinatorKey reads a coordinator public key file (PATH.pub).
func LoadCoordinatorKey(path string) (ed25519.PublicKey, error) {
	b, err := readHex32(path, false)
	if err != nil {
		return nil, err
	}
	return ed25519.PublicKey(b), nil
}

// SigningKeyFile describes the files CreateSigningKeyFile wrote; the
// public key is public.
type SigningKeyFile struct {
	Path          string `json:"path"`
	PublicKeyPath string `json:"publicKeyPath"`
	PublicKey     string `json:"publicKey"`
	Algorithm     string `json:"algorithm"`
	Mode          string `json:"mode"`
}

// CreateSigningKeyFile is GenerateSigningKey(path), described: the
// private key at path (mode 0600), the public key, hex, at path + ".pub".
func CreateSigningKeyFile(path string) (SigningKeyFile, error) {
	pub, err := GenerateSigningKey(path)
	if err != nil {
		return SigningKeyFile{}, err
	}
	return SigningKeyFile{Path: path, PublicKeyPath: path + ".pub", PublicKey: hex.EncodeToString(pub), Algorithm: "ed25519", Mode: "0600"}, nil
}
