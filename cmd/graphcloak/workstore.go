package main

import (
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/internal/jobfiles"
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

// workStore is the store --cache-dir names (dir; "" its default in the
// user cache directory; jobfiles.WorkStore); nil for none.
func workStore(g *globalOptions, dir string) (*job.WorkCache, error) {
	return jobfiles.WorkStore(&g.cfg.Config, dir, g.logger)
}

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
