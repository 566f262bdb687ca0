package privacy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"
)

// ValuesDigest is the SHA-256 of a release's published values as a set of
// (key, grid integer r_i) pairs: order-free, so a reader that gets the
// values in another node order computes the same digest. A release run
// records it (connector.RunRecord.ValuesDigest); unmask and locate
// a release run recompute it from the values they read and refuse
// anything else — values overwritten by another command, or read under
// another node key.
func ValuesDigest(keys []string, grid []int64) string {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	h := sha256.New()
	h.Write([]byte("graphcloak.release-values.v1\x00"))
	var buf [8]byte
	for _, i := range idx {
		binary.BigEndian.PutUint64(buf[:], uint64(len(keys[i]))) // length-prefixed: no two pair lists hash alike
		h.Write(buf[:])
		h.Write([]byte(keys[i]))
		binary.BigEndian.PutUint64(buf[:], uint64(grid[i]))
		h.Write(buf[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Digest is ValuesDigest of r's keys and grid values.
func (r *Released) Digest() string { return ValuesDigest(r.Keys, r.Grid) }
