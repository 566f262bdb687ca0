package privacy

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/graphcloak/graphcloak/keyednoise"
)

// NoiseSource selects where released noise comes from. The zero value is
// CryptoNoise. math/rand is never used for released noise.
type NoiseSource struct {
	key *Key      // non-nil: keyed noise
	src bitSource // tests only: replaces crypto/rand
}

// CryptoNoise draws fresh noise from crypto/rand. Nobody can regenerate it.
func CryptoNoise() NoiseSource { return NoiseSource{} }

// KeyedNoise draws noise from a keyed ChaCha20 stream per released value
// (package keyednoise; see keys.go for the derivation), so that the holder of key can
// regenerate it with Unmask. Against anyone without the key the output is
// computationally indistinguishable from CryptoNoise (SIM-CDP, Mironov,
// Pandey, Reingold & Vadhan 2009), assuming HKDF-SHA256 and ChaCha20 are
// pseudorandom.
func KeyedNoise(key Key) NoiseSource {
	k := key
	return NoiseSource{key: &k}
}

// Keyed reports whether the source is keyed.
func (n NoiseSource) Keyed() bool { return n.key != nil }

// Format implements fmt.Formatter; it never prints key material.
func (n NoiseSource) Format(f fmt.State, _ rune) {
	if n.key != nil {
		io.WriteString(f, "keyed ChaCha20")
		return
	}
	io.WriteString(f, "crypto/rand")
}

// cryptoSource reads crypto/rand in 512-byte chunks.
type cryptoSource struct {
	buf [512]byte
	pos int
}

func newCryptoSource() *cryptoSource { return &cryptoSource{pos: 512} }

func (s *cryptoSource) Uint64() uint64 {
	if s.pos == len(s.buf) {
		// crypto/rand.Read never returns an error since Go 1.24 (it
		// crashes the program rather than return weak randomness).
		rand.Read(s.buf[:])
		s.pos = 0
	}
	v := binary.LittleEndian.Uint64(s.buf[s.pos:])
	s.pos += 8
	return v
}

// noiseParams fixes the sampler of one release.
type noiseParams struct {
	version      int    // sampler version; 0 means SamplerVersion
	releaseID    string // fresh per release (version ≥ 2)
	scope, epoch string
	s2           uint64 // σ̃² = (σ/γ)², integer
	k            int    // grid exponent, γ = 2^−k
}

// keyed returns p as keyednoise parameters.
func (p noiseParams) keyed() keyednoise.Params {
	v := p.version
	if v == 0 {
		v = SamplerVersion
	}
	return keyednoise.Params{Version: v, ReleaseID: p.releaseID, Scope: p.scope, Epoch: p.epoch, GridVariance: p.s2, GridExponent: p.k}
}

// keyedNoise returns the grid noise Z_i for each node key, each from its
// own derived key (stream 0). It is the function Unmask re-runs. Values
// are independent per key, so large batches are split over GOMAXPROCS
// workers; the output does not depend on the split.
func keyedNoise(key *Key, p noiseParams, keys []string) ([]int64, error) {
	workers := 1
	if len(keys) >= 1<<13 {
		workers = runtime.GOMAXPROCS(0)
	}
	return keyedNoiseWorkers(key, p, keys, workers)
}

func keyedNoiseWorkers(key *Key, p noiseParams, keys []string, workers int) ([]int64, error) {
	z := make([]int64, len(keys))
	kp := p.keyed()
	master := (*[KeySize]byte)(key)
	if workers <= 1 {
		return z, keyednoise.Fill(master, kp, keys, z)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	chunk := (len(keys) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(keys))
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			errs[w] = keyednoise.Fill(master, kp, keys[lo:hi], z[lo:hi])
		}(w, lo, hi)
	}
	wg.Wait()
	return z, errors.Join(errs...)
}

// draw returns the noise Z_i for keys from the source n.
func (n NoiseSource) draw(p noiseParams, keys []string) ([]int64, error) {
	if n.key != nil {
		return keyedNoise(n.key, p, keys)
	}
	src := n.src
	if src == nil {
		src = newCryptoSource()
	}
	g := keyednoise.NewGaussian(p.s2)
	z := make([]int64, len(keys))
	for i := range z {
		z[i] = g.Sample(src)
	}
	return z, nil
}
