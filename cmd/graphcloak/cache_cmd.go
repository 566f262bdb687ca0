package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/job"
)

// "graphcloak cache": the store of work (workstore.go) shown and pruned.

const cacheHelp = `cache shows the store of work graphcloak keeps and reuses by default: the
Δ2 certificates, the private answer's certificates (the audit's pass over
every source), their calibrations and audits, and plan's forecasts. plan,
locate --private-answer, serve and audit read it and write it without a flag,
so that work done by one is not done again by another on the same graph and
parameters; --cache-dir DIR chooses another store, --cache-dir none opts out.

Every file is named by the graph's fingerprint and the parameters and
sealed (under the ledger key's certificate subkey, else this installation's
key): one that does not verify, or that another version wrote, is computed
again, never trusted. Files are written whole and renamed, so processes
share a store safely. The store is bounded by GRAPHCLOAK_CACHE_MAX (default
1G): after a command keeps something, the least recently used files beyond it
are removed. "graphcloak cache prune" empties it (--max-bytes N keeps the most
recently used N bytes).`

// cacheOptions are the flags of "cache" and "cache prune".
type cacheOptions struct {
	dir      string
	maxBytes string
}

func newCacheCmd(g *globalOptions) *cobra.Command {
	o := &cacheOptions{}
	cmd := &cobra.Command{
		Use:     "cache",
		Short:   "Show the store of work commands reuse by default (certificates, audits, forecasts)",
		Long:    cacheHelp,
		Example: "  graphcloak cache\n  graphcloak cache prune --max-bytes 200M\n  graphcloak cache prune",
		Args:    noArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runCacheShow(g, o, g.stdout)
		},
	}
	addCacheDirFlag(cmd.Flags(), &o.dir)
	prune := &cobra.Command{
		Use:   "prune",
		Short: "Remove the store's least recently used files (all of them by default)",
		Args:  noArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runCachePrune(g, o, g.stdout)
		},
	}
	addCacheDirFlag(prune.Flags(), &o.dir)
	prune.Flags().StringVar(&o.maxBytes, "max-bytes", "0", "keep the most recently used files up to this size (K, M, G: powers of 1024); 0 empties the store")
	cmd.AddCommand(prune)
	return cmd
}

// cacheStore is the store "cache" names (none: a usage error).
func cacheStore(g *globalOptions, o *cacheOptions) (*job.WorkCache, error) {
	w, err := workStore(g, o.dir)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, errkind.Usagef("--cache-dir: no store (none, or no user cache directory): give --cache-dir DIR")
	}
	return w, nil
}

func runCacheShow(g *globalOptions, o *cacheOptions, out io.Writer) error {
	w, err := cacheStore(g, o)
	if err != nil {
		return err
	}
	r, err := w.Report()
	if err != nil {
		return errkind.Inputf("--cache-dir %s: %s", w.Dir, err.Error())
	}
	return printCacheReport(g, out, r, false)
}

func runCachePrune(g *globalOptions, o *cacheOptions, out io.Writer) error {
	max, err := jobfiles.ParseBytes(o.maxBytes)
	if err != nil {
		return errkind.Usagef("--max-bytes: %s", err.Error())
	}
	w, err := cacheStore(g, o)
	if err != nil {
		return err
	}
	r, err := w.PruneReport(max)
	if err != nil {
		return errkind.Inputf("--cache-dir %s: %s", w.Dir, err.Error())
	}
	return printCacheReport(g, out, r, true)
}

// printCacheReport prints r, the store (pruned: after a prune).
func printCacheReport(g *globalOptions, out io.Writer, r job.StoreReport, pruned bool) error {
	if g.output == "json" {
		return printJSON(out, r)
	}
	textreport.Cache(out, r, pruned)
	return nil
}
