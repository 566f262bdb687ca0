// Package writeback is the Neo4j side of graphcloak's runs: Neo4j, the
// job.Backend of a release (run records with leases and the scope claim,
// the output registry, values stored durably, writes bound to the run),
// and Locate, a localisation's per-node results under its run record.
// The order of a release's steps — and so its crash safety — is job's
// (job.Execute); this package only carries each step to the database.
package writeback

import (
	"context"
	"strconv"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/connector"
)

// LocateProperties name the node properties of a localisation.
type LocateProperties struct {
	Mass, Community, Probability, Rank string
}

// Locate writes res's per-node results (mass, community, community
// probability, rank) to the projection's nodes, fills in the run record
// and marks the run succeeded last. named says the communities have names
// (a property or a file): a numeric name is written as an integer, others
// as strings; detected communities are written as their integer ids.
func Locate(ctx context.Context, c *connector.Client, run *connector.Run, res *graphcloak.LocateResult, named bool,
	names LocateProperties, p connector.Projection, opt connector.WriteOptions) (connector.WriteStats, error) {
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
			names.Mass: nr.Mass, names.Community: comm, names.Probability: nr.Probability, names.Rank: int64(nr.Rank)}}
	}
	st, err := c.WriteProperties(ctx, p, rows, opt)
	if err != nil {
		return st, err
	}
	rec := &run.Record
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
