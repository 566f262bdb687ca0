package job

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// NewRunID returns a fresh run id: UTC time plus 48 random bits.
func NewRunID() string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return fmt.Sprintf("run-%s-%s", time.Now().UTC().Format("20060102T150405Z"), hex.EncodeToString(b))
}
