package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
)

// Stamp is the build a stored file of work is stamped with (a file
// another build wrote is computed again): the version, and for a source
// build that names no commit, or a modified one, the SHA-256 of its
// executable — two such builds may compute differently, and the store of
// work is shared by every build on the machine by default.
var Stamp = sync.OnceValue(func() string {
	v := Read()
	s := v.String()
	if v.Version != "(devel)" || (v.Commit != "" && !v.Modified) {
		return s
	}
	exe, err := os.Executable()
	if err != nil {
		return s
	}
	f, err := os.Open(exe)
	if err != nil {
		return s
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return s
	}
	return s + ", build " + hex.EncodeToString(h.Sum(nil)[:8])
})
