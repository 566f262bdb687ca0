package stores

import (
	"context"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// ParamNoiseKey names the noise key a keyed release is unmasked with.
const ParamNoiseKey errkind.Param = "key"

// UnmaskRequest names a keyed release and the noise key it was drawn with
// (unmask): the release file ReleaseFile, or run ReleaseRun on Graph
// (Neo4jSpec), whose record and write property hold it.
type UnmaskRequest struct {
	KeyFile, ReleaseFile string
	Graph, ReleaseRun    string
}

// Check refuses a request that names no key, or not exactly one release.
func (r UnmaskRequest) Check() error {
	fromDB := r.Graph != "" || r.ReleaseRun != ""
	switch {
	case r.KeyFile == "":
		return errkind.Usagef("unmask needs %s FILE", ParamNoiseKey)
	case fromDB && r.ReleaseFile != "":
		return errkind.Usagef("give either %s FILE or %s %s %s RUNID, not both", job.ParamReleaseFile, job.ParamGraph, Neo4jSpec, job.ParamReleaseRun)
	case fromDB && (r.Graph != Neo4jSpec || r.ReleaseRun == ""):
		return errkind.Usagef("unmask from the database needs %s %s and %s RUNID", job.ParamGraph, Neo4jSpec, job.ParamReleaseRun)
	case !fromDB && r.ReleaseFile == "":
		return errkind.Usagef("unmask needs %s FILE, or %s %s %s RUNID", job.ParamReleaseFile, job.ParamGraph, Neo4jSpec, job.ParamReleaseRun)
	}
	return nil
}

// Unmask reads the key, then the release — its file, or its run from
// Neo4j (ReleasedValues) on stores opened with opts for it alone — and
// removes the keyed noise (privacy.Unmasked).
func (r UnmaskRequest) Unmask(ctx context.Context, cfg *config.Loaded, opts Options) (*privacy.UnmaskReport, error) {
	key, err := privacy.LoadKey(r.KeyFile)
	if err != nil {
		return nil, errkind.Input(err)
	}
	var rel *privacy.Released
	if r.ReleaseRun != "" {
		rel, err = releasedFrom(ctx, cfg, opts, r.ReleaseRun)
	} else if rel, err = privacy.ReadReleaseFile(r.ReleaseFile); err != nil {
		err = errkind.Input(err)
	}
	if err != nil {
		return nil, err
	}
	u, err := privacy.Unmasked(key, rel)
	if err != nil {
		return nil, errkind.Input(err)
	}
	return u, nil
}

// releasedFrom rebuilds the release of run runID from the database on
// stores connected for it.
func releasedFrom(ctx context.Context, cfg *config.Loaded, opts Options, runID string) (*privacy.Released, error) {
	opts.Neo4j = true
	st, err := Open(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	defer st.Close(context.WithoutCancel(ctx))
	return st.ReleasedValues(ctx, runID)
}
