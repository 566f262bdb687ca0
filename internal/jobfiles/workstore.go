package jobfiles

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/job"
)

// StoreMaxEnv bounds the store of work's size in bytes (suffixes K, M, G:
// powers of 1024); unset: job.DefaultStoreMaxBytes (1 GiB).
const StoreMaxEnv = "GRAPHCLOAK_CACHE_MAX"

// StoreMaxBytes is the store's bound from StoreMaxEnv.
func StoreMaxBytes() (int64, error) {
	v := os.Getenv(StoreMaxEnv)
	if v == "" {
		return job.DefaultStoreMaxBytes, nil
	}
	n, err := ParseBytes(v)
	if err != nil {
		return 0, errkind.Inputf("%s: %v", StoreMaxEnv, err)
	}
	return n, nil
}

// ParseBytes reads a size: a count of bytes ≥ 0, optionally with K, M or
// G (powers of 1024; a trailing B or iB is allowed).
func ParseBytes(v string) (int64, error) {
	s := strings.ToUpper(strings.TrimSpace(v))
	s = strings.TrimSuffix(strings.TrimSuffix(s, "B"), "I")
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a size in bytes ≥ 0 (e.g. 500M, 2G), got %q", v)
	}
	return n * mult, nil
}

// WorkStore is the store of work in dir ("": its default in the user
// cache directory, job.DefaultStoreDir), bounded by StoreMaxEnv, sealed
// under CertificateMACKey and stamped with this build (buildinfo.Stamp);
// nil for "none", or when there is no user cache directory.
func WorkStore(cfg *config.Config, dir string, logger *slog.Logger) (*job.WorkCache, error) {
	switch dir {
	case "none":
		return nil, nil
	case "":
		if dir = job.DefaultStoreDir(); dir == "" {
			return nil, nil
		}
	}
	max, err := StoreMaxBytes()
	if err != nil {
		return nil, err
	}
	key, err := CertificateMACKey(cfg)
	if err != nil {
		return nil, err
	}
	return &job.WorkCache{Dir: dir, MACKey: key, Software: buildinfo.Stamp(), Logger: logger, MaxBytes: max}, nil
}
