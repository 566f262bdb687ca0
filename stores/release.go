package stores

import (
	"context"
	"io"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// ReleaseFiles name a release's local inputs, read before anything is
// connected.
type ReleaseFiles struct {
	// Values is the raw readings' CSV file, or "-" for Stdin ("": the
	// configured value property is read with the graph instead).
	Values string
	Stdin  io.Reader
	// Certificate is a Δ2 certificate file ("": none), checked against
	// the ledger key's MAC.
	Certificate string
}

// ReadReleaseInputs completes spec from the configuration and files — the
// ledger key, the certificate, the mechanism, the noise source, the
// ledger — checks it (job.ReleaseSpec.Check) and returns the raw
// readings of files.Values (nil without one).
func ReadReleaseInputs(cfg *config.Config, spec *job.ReleaseSpec, files ReleaseFiles) (map[string]float64, error) {
	lopt, err := ledgerOptions(cfg)
	if err != nil {
		return nil, err
	}
	spec.LedgerKey = lopt.Key
	if files.Certificate != "" {
		c, err := sensitivity.LoadCertificate(files.Certificate)
		var key []byte
		if err == nil {
			key, err = privacy.CacheMACKey(spec.LedgerKey)
		}
		if err == nil {
			err = c.CheckMAC(key)
		}
		if err != nil {
			return nil, errkind.Inputf("%s: %w", job.ParamCertificate, err)
		}
		spec.Certificate = &c
	}
	if err := spec.Check(); err != nil {
		return nil, err
	}
	header, _ := csvin.ParseHeader(cfg.Input.Header) // validated by config
	if spec.Mechanism, err = privacy.ParseMechanism(cfg.Privacy.Mechanism); err != nil {
		return nil, errkind.Inputf("%s: %v", privacy.ParamMechanism, err)
	}
	spec.Noise = privacy.CryptoNoise()
	if cfg.Privacy.KeyFile != "" {
		key, err := privacy.LoadKey(cfg.Privacy.KeyFile)
		if err != nil {
			return nil, err
		}
		spec.Noise = privacy.KeyedNoise(key)
	}
	var readings map[string]float64
	spec.ValuesFrom = "property:" + spec.Projection.ValueProperty
	if files.Values != "" {
		spec.ValuesFrom = "csv:" + files.Values
		if readings, err = inputfiles.ReadReadings(files.Stdin, files.Values, header); err != nil {
			return nil, err
		}
	}
	if spec.Ledger = cfg.Privacy.Ledger; spec.Ledger != "neo4j" {
		if spec.Ledger, err = ledgerPath(cfg); err != nil {
			return nil, err
		}
	}
	return readings, nil
}

// RunRelease plans the release on s and, unless it is a dry run,
// executes it; readings are the raw readings by node key (nil: the
// configured value property). A dry run reads the ledger and the epoch's
// earlier run as the release would, so it is refused where the release
// would be; it returns the plan's summary (nil without a plan), as does a
// plan refused.
func (s *Stores) RunRelease(ctx context.Context, spec job.ReleaseSpec, readings map[string]float64, env job.Env) (*job.ReleaseSummary, error) {
	env = s.Env(env, spec.Neo4j)
	// The partition the forecasts score: a file is always read (and
	// refused when it does not fit the graph); one computed or read from
	// the database only when a forecast will score it.
	var c Communities
	if named := parseCommunities(spec.Communities); named.Kind == "file" || spec.DryRun || spec.RefuseAtChance || spec.SmoothAuto {
		c = Communities{Kind: named.Kind, Arg: named.Arg, Resolution: 1, Seed: int64(spec.ForecastSeed)}
	}
	env.Load = func(ctx context.Context) (*job.Input, error) {
		return s.ReleaseInput(ctx, spec.Graph, spec.Projection.ValueProperty, readings, c)
	}
	plan, err := job.PlanRelease(ctx, spec, env)
	if plan == nil {
		return nil, err
	}
	if err != nil || spec.DryRun {
		return plan.Summary, err
	}
	return job.Execute(ctx, plan)
}
