// Package keyednoise draws the keyed discrete Gaussian noise of graphcloak's
// releases: the exact sampler of Canonne, Kamath & Steinke (2020) reading a
// ChaCha20 keystream whose key is derived with HKDF-SHA256 from a noise key,
// the release's parameters and the node key. Whoever holds the key can
// regenerate, and so remove, the noise.
//
// It depends on the standard library and golang.org/x/crypto only, so that
// a sensor can draw its own noise (package sensor) with the key derived for
// it (SensorKey, sampler version 3), and the master-key holder can draw or
// remove the same noise centrally (package privacy). docs/local-sampler.md
// specifies every step language-neutrally, with test vectors
// (sensor/testdata/vectors.json), so that firmware can match it bit for bit.
//
// Conventions: integers in derivation strings are big-endian; a variable-length
// string x enters as lp(x) = u32(len(x)) ‖ x; keystream words are
// little-endian uint64; σ̃² is the integer variance on the grid γ = 2^−k.
package keyednoise
