package job

import (
	"context"
	"strconv"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/connector"
)

// LocateProperties name the node properties of a localisation.
type LocateProperties struct {
	Mass, Community, Probability, Rank string
}

// StartLocate starts a localisation's run record rec ("running", with a
// lease) on b, after claiming its output properties: each holds one kind
// of values, so one that a release's values, another kind of output, the
// node key or the readings own is refused (exit 3) before anything is
// computed or written.
func StartLocate(ctx context.Context, b Backend, rec connector.RunRecord, props LocateProperties, lease time.Duration) (Run, error) {
	claims := connector.Claims{Outputs: map[string]string{
		props.Mass: connector.KindMass, props.Community: connector.KindCommunity,
		props.Probability: connector.KindProbability, props.Rank: connector.KindRank},
		Inputs: connector.InputClaims(rec.Projection)}
	if err := b.ClaimOutputs(ctx, rec.RunID, "locate", claims); err != nil {
		return nil, err
	}
	return b.StartRun(ctx, rec, lease)
}

// PublishLocate writes res's per-node results (mass, community,
// community probability, rank) to the nodes, fills in the run record and
// marks the run succeeded last, so a localisation that stopped part-way
// is never recorded as succeeded. named says the communities have names
// (a property or a file): a numeric name is written as an integer, others
// as strings; detected communities are written as their integer ids.
func PublishLocate(ctx context.Context, b Backend, run Run, res *graphcloak.LocateResult, named bool, props LocateProperties,
	progress func(done, total int)) (connector.WriteStats, error) {
	rows := make([]connector.NodeProps, len(res.Nodes))
	communities := map[int]bool{}
	for i, nr := range res.Nodes {
		communities[nr.CommunityID] = true
		var comm any = int64(nr.CommunityID)
		if named {
			if c, perr := strconv.ParseInt(nr.Community, 10, 64); perr == nil {
				comm = c
			} else {
				comm = nr.Community
			}
		}
		rows[i] = connector.NodeProps{Key: nr.Key, Props: map[string]any{
			props.Mass: nr.Mass, props.Community: comm, props.Probability: nr.Probability, props.Rank: int64(nr.Rank)}}
	}
	st, err := b.WriteNodes(ctx, rows, progress)
	if err != nil {
		return st, err
	}
	rec := run.Record()
	rec.Sigma = res.Sigma
	rec.NodePropertiesWritten, rec.ComputeMillis, rec.WriteMillis = st.NodePropertiesWritten, res.ComputeMillis, st.WriteMillis
	rec.Extra = map[string]any{"estimator": res.Estimator, "recoveryStatus": res.Status,
		"noSource": res.Report.NoSource, "communityCount": int64(len(communities))}
	if len(res.Report.Communities) > 0 {
		rec.Extra["topCommunity"] = res.Report.Communities[0].Name
		rec.Extra["topProbability"] = res.Report.Communities[0].Share
	}
	return st, run.Succeed(ctx) // last
}
