package privacy

import (
	"math/big"

	"github.com/graphcloak/graphcloak/keyednoise"
)

// SamplerVersion identifies the exact bit-for-bit behaviour of the discrete
// Gaussian sampler together with the key derivation, both in package
// keyednoise. Any change to either that changes a single output must bump
// it; the golden vectors in testdata/ freeze each version. Version 2 added
// the release id to the key derivation; version 3 derives each node's
// noise from its sensor key K_s = keyednoise.SensorKey(key, node), so that
// a sensor holding only K_s draws the same noise as a central release
// (package sensor). Unmask still regenerates versions 1 and 2.
const SamplerVersion = keyednoise.Version3

// maxSigma2 bounds the integer variance σ̃² of the sampler (2^50, that is
// σ̃ ≤ 2^25 grid steps): keyednoise.MaxGridVariance.
const maxSigma2 = keyednoise.MaxGridVariance

// bitSource yields uniformly random 64-bit words. Keyed noise reads a
// ChaCha20 keystream as little-endian uint64; default noise reads
// crypto/rand. The sampler (keyednoise.Gaussian, Canonne, Kamath &
// Steinke 2020, specified in keyednoise/dgauss.go and
// docs/local-sampler.md) consumes randomness only through it.
type bitSource = keyednoise.Source

var bigOne = big.NewInt(1)
