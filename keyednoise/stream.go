package keyednoise

import (
	"encoding/binary"

	"golang.org/x/crypto/chacha20"
)

// Stream reads the ChaCha20 keystream (RFC 8439, zero nonce, block
// counter from 0) of one derived value key as little-endian uint64 words,
// one 64-byte block at a time. The zero nonce is safe because every value
// key is used for one value only. The zero Stream must be Reset before use.
type Stream struct {
	c   chacha20.Cipher
	buf [64]byte
	pos int
}

var zeroNonce [chacha20.NonceSize]byte

// Reset rekeys the stream with a 32-byte value key and rewinds it. It
// panics if key is not 32 bytes.
func (s *Stream) Reset(key []byte) {
	c, err := chacha20.NewUnauthenticatedCipher(key, zeroNonce[:])
	if err != nil {
		panic("keyednoise: chacha20: " + err.Error())
	}
	s.c = *c
	s.pos = len(s.buf)
}

// Uint64 returns the next keystream word (bytes 8i..8i+7, little-endian).
func (s *Stream) Uint64() uint64 {
	if s.pos == len(s.buf) {
		clear(s.buf[:])
		s.c.XORKeyStream(s.buf[:], s.buf[:])
		s.pos = 0
	}
	v := binary.LittleEndian.Uint64(s.buf[s.pos:])
	s.pos += 8
	return v
}

// Wipe clears the buffered keystream and the cipher state.
func (s *Stream) Wipe() {
	clear(s.buf[:])
	s.c = chacha20.Cipher{}
	s.pos = len(s.buf)
}
