package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/job"
)

// The one store of work (job.WorkCache) that plan, locate
// --private-answer, release, epoch open, serve and audit read and write by
// default: --cache-dir
// DIR chooses it, --cache-dir none keeps nothing, and "graphcloak cache"
// shows and prunes it.

// cacheDirHelp is --cache-dir's help on every command that uses the store.
const cacheDirHelp = "the store of work every command shares — Δ2, the private answer's certificate, calibrations, audits and forecasts, sealed and named by the graph's fingerprint and the parameters — read and written by default (default: graphcloak/store in the user cache directory; none: keep and reuse nothing; see graphcloak cache)"

// addCacheDirFlag adds --cache-dir.
func addCacheDirFlag(f *pflag.FlagSet, dir *string) {
	f.StringVar(dir, "cache-dir", "", cacheDirHelp)
}

// storeMaxEnv bounds the store's size in bytes (suffixes K, M, G: powers
// of 1024); unset: job.DefaultStoreMaxBytes (1 GiB).
const storeMaxEnv = "GRAPHCLOAK_CACHE_MAX"

// storeMaxBytes is the store's bound from storeMaxEnv.
func storeMaxBytes() (int64, error) {
	v := os.Getenv(storeMaxEnv)
	if v == "" {
		return job.DefaultStoreMaxBytes, nil
	}
	n, err := parseBytes(v)
	if err != nil {
		return 0, inputErrorf("%s: %v", storeMaxEnv, err)
	}
	return n, nil
}

// parseBytes reads a size: a count of bytes ≥ 0, optionally with K, M or
// G (powers of 1024; a trailing B or iB is allowed).
func parseBytes(v string) (int64, error) {
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

// workStore is the store --cache-dir names (dir; "" its default in the
// user cache directory), sealed under the ledger key's certificate subkey,
// else this installation's key; nil for none, or when there is no user
// cache directory.
func workStore(g *globalOptions, dir string) (*job.WorkCache, error) {
	switch dir {
	case "none":
		return nil, nil
	case "":
		if dir = job.DefaultStoreDir(); dir == "" {
			return nil, nil
		}
	}
	max, err := storeMaxBytes()
	if err != nil {
		return nil, err
	}
	key, err := inputfiles.CertificateMACKey(&g.cfg.Config)
	if err != nil {
		return nil, err
	}
	return &job.WorkCache{Dir: dir, MACKey: key, Software: storeSoftware(), Logger: g.logger, MaxBytes: max}, nil
}

// storeSoftware is the build the store's files are stamped with (a file
// another build wrote is computed again): the version, and for a source
// build that names no commit, or a modified one, the SHA-256 of its
// executable — two such builds may compute differently, and the store is
// shared by every build on the machine by default.
var storeSoftware = sync.OnceValue(func() string {
	v := buildinfo.Read()
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

// useWorkStore keeps a release's or an epoch's Δ2 certificate in the work
// store --cache-dir names (dir) when neither --sensitivity-cert nor
// --sensitivity-cache names one: the certificate plan, audit and every
// other command keep and reuse.
func useWorkStore(g *globalOptions, dir string, spec *job.ReleaseSpec) error {
	if spec.CertificatePath != "" || spec.CachePath != "" {
		return nil
	}
	var err error
	spec.Store, err = workStore(g, dir)
	return err
}

// trimStore prunes the store --cache-dir names to its bound (after a
// command kept a file there without the store's own writer).
func trimStore(g *globalOptions, dir string) {
	if w, err := workStore(g, dir); err == nil {
		w.Trim()
	}
}
