package connector

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// GDSAlgorithms are the community detectors GDSCommunities runs.
var GDSAlgorithms = []string{"leiden", "louvain"}

// GDSMissingError reports a server without Neo4j Graph Data Science.
type GDSMissingError struct{ Database string }

func (e *GDSMissingError) Error() string { return e.message().Error() }

// RenderText is the message naming the communities parameter as name does.
func (e *GDSMissingError) RenderText(name func(errkind.Param) string) string {
	return e.message().(errkind.Renderer).RenderText(name)
}

func (e *GDSMissingError) message() error {
	return errkind.Errorf("Neo4j Graph Data Science is not installed on database %q (no gds.graph.project procedure): install the GDS plugin, or detect communities with graphcloak (%s leiden)", e.Database, ParamCommunities)
}

func (*GDSMissingError) connectorError() {}

// GDSOptions tune GDSCommunities.
type GDSOptions struct {
	// Resolution is Leiden's γ (gamma); 0 means GDS's default (1).
	// Louvain has none in GDS and refuses any value but 0 or 1.
	Resolution float64
	// Seed makes Leiden deterministic (randomSeed, with concurrency 1).
	Seed int64
}

// GDSCommunities detects communities of the projection p with Neo4j Graph
// Data Science: it projects exactly the graph ReadGraph reads (p's labels
// and relationship types, undirected, p's weight or 1) with the Cypher
// aggregation gds.graph.project under a unique name, streams algo's
// communities (gds.leiden.stream or gds.louvain.stream), and drops the
// projection afterwards — also when something failed. It returns each
// node's community id by node key (p's key property, else elementId).
func (c *Client) GDSCommunities(ctx context.Context, database string, p Projection, algo string, opt GDSOptions) (map[string]int64, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	conf := map[string]any{"concurrency": int64(1)}
	switch algo {
	case "leiden":
		conf["randomSeed"] = opt.Seed
		if opt.Resolution > 0 {
			conf["gamma"] = opt.Resolution
		}
	case "louvain":
		if opt.Resolution != 0 && opt.Resolution != 1 {
			return nil, &ArgumentError{Param: "resolution", Reason: "gds:louvain has no resolution parameter; use gds:leiden"}
		}
	default:
		return nil, &ArgumentError{Param: "gds algorithm", Reason: fmt.Sprintf("%q is not one of %v", algo, GDSAlgorithms)}
	}
	cp, err := p.compile()
	if err != nil {
		return nil, err
	}
	if err := c.requireGDS(ctx, db); err != nil {
		return nil, err
	}
	name := "graphcloak_" + randomName()
	weight := "1.0"
	if cp.weight != "" {
		weight = "coalesce(toFloat(r." + cp.weight + "), 1.0)"
	}
	// Each relationship once, directed as stored, declared undirected; an
	// isolated node comes with a null target. Self-loops are left out, as
	// ReadGraph leaves them out (laplacian.FromEdges): a node whose only
	// relationship is a loop is an isolated node.
	project := "MATCH " + cp.nodeMatch("n") + " OPTIONAL MATCH (n)-[" + cp.relPattern + "]->" + cp.nodeMatch("m") + " WHERE m <> n " +
		"WITH gds.graph.project($name, n, m, {relationshipProperties: CASE WHEN r IS NULL THEN null ELSE {w: " + weight + "} END}, " +
		"{undirectedRelationshipTypes: ['*']}) AS g RETURN g.nodeCount"
	if _, err := c.exec(ctx, db, "gds project", project, map[string]any{"name": name}); err != nil {
		return nil, err
	}
	defer func() {
		// Dropped whatever happened: a projection holds server memory.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = c.exec(dctx, db, "gds drop", "CALL gds.graph.drop($name, false) YIELD graphName RETURN graphName", map[string]any{"name": name})
	}()
	conf["relationshipWeightProperty"] = "w"
	key := "elementId(node)"
	if cp.key != "" {
		key = "node." + cp.key
	}
	return runRead(ctx, c, db, "gds "+algo, func(ctx context.Context, tx neo4j.ManagedTransaction) (map[string]int64, error) {
		res, err := tx.Run(ctx, "CALL gds."+algo+".stream($name, $conf) YIELD nodeId, communityId "+
			"WITH gds.util.asNode(nodeId) AS node, communityId RETURN "+key+" AS key, communityId", map[string]any{"name": name, "conf": conf})
		if err != nil {
			return nil, err
		}
		out := map[string]int64{}
		for res.Next(ctx) {
			v := res.Record().Values
			k, ok := keyString(v[0])
			if !ok {
				return nil, &DataError{Reason: fmt.Sprintf("GDS returned a node whose key %v is neither a string nor an integer", v[0])}
			}
			id, _ := v[1].(int64)
			out[k] = id
		}
		return out, res.Err()
	})
}

// requireGDS checks that the GDS procedures are installed.
func (c *Client) requireGDS(ctx context.Context, db string) error {
	has, err := c.hasProcedure(ctx, db, "gds.graph.drop")
	if err != nil {
		return err
	}
	if !has {
		return &GDSMissingError{Database: db}
	}
	return nil
}

func randomName() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
