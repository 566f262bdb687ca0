package connector

import (
	"fmt"
	"strings"
)

// Projection names the part of a Neo4j database that graphcloak reads, in
// Neo4j Graph Data Science terms. Relationships are always read with
// orientation UNDIRECTED: each relationship (a)-[r]->(b) becomes the
// undirected edge {a, b}; parallel relationships add their weights.
type Projection struct {
	// NodeLabels selects nodes having any of these labels. Empty (or the
	// single entry "*") selects every node.
	NodeLabels []string `json:"nodeLabels"`
	// RelationshipTypes selects relationships of any of these types whose
	// both ends are selected nodes. Empty (or "*") selects every type.
	RelationshipTypes []string `json:"relationshipTypes"`
	// RelationshipWeightProperty names the relationship weight. Empty
	// means unweighted (weight 1). When set, every selected relationship
	// must carry a finite, positive number.
	RelationshipWeightProperty string `json:"relationshipWeightProperty,omitempty"`
	// NodeKeyProperty names the property identifying nodes (its value,
	// a string or an integer, becomes the node key). Empty means the
	// node's elementId. Keys must be unique among selected nodes.
	NodeKeyProperty string `json:"nodeKeyProperty,omitempty"`
	// CommunityProperty names an integer community id per node (for
	// example written by GDS Louvain or Leiden). Empty: none read.
	CommunityProperty string `json:"communityProperty,omitempty"`
	// ValueProperty names the per-node observed (or released) value.
	// Empty: none read.
	ValueProperty string `json:"valueProperty,omitempty"`
	// Database is the database name; empty means the client's default
	// (Options.Database, itself defaulting to "neo4j").
	Database string `json:"database,omitempty"`
}

// Validate checks every name of p (labels, types, property names and the
// database name) without contacting the server. It returns
// *IdentifierError for the first name that is not a plain identifier.
func (p Projection) Validate() error {
	if _, err := p.compile(); err != nil {
		return err
	}
	if p.Database != "" {
		return checkDatabase(p.Database)
	}
	return nil
}

// compiled holds the quoted query fragments of a validated projection.
type compiled struct {
	nodePattern string // "(n)" or "(n:`A`|`B`)" — with the variable n
	labels      []string
	types       []string
	relPattern  string // "[r]" or "[r:`T`|`U`]"
	weight      string // quoted, or ""
	key         string
	community   string
	value       string
}

func wildcard(names []string) bool {
	return len(names) == 0 || (len(names) == 1 && names[0] == "*")
}

func (p Projection) compile() (*compiled, error) {
	c := &compiled{}
	var err error
	if !wildcard(p.NodeLabels) {
		if c.labels, err = quoteAll("label", p.NodeLabels); err != nil {
			return nil, err
		}
	}
	if !wildcard(p.RelationshipTypes) {
		if c.types, err = quoteAll("relationship type", p.RelationshipTypes); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{p.RelationshipWeightProperty, &c.weight},
		{p.NodeKeyProperty, &c.key},
		{p.CommunityProperty, &c.community},
		{p.ValueProperty, &c.value},
	} {
		if f.name == "" {
			continue
		}
		if *f.dst, err = Quote("property", f.name); err != nil {
			return nil, err
		}
	}
	c.nodePattern = "n"
	if len(c.labels) > 0 {
		c.nodePattern = "n:" + strings.Join(c.labels, "|")
	}
	c.relPattern = "r"
	if len(c.types) > 0 {
		c.relPattern = "r:" + strings.Join(c.types, "|")
	}
	return c, nil
}

// nodeMatch returns the node pattern with variable v:
// "(v:`A`|`B` WHERE NOT v:`GraphcloakRun`|…)". Graphcloak's own
// bookkeeping nodes (BookkeepingLabels) are left out whatever the labels,
// so a bookkeeping node that also carries a user's label is never read or
// written as part of the user's graph.
func (c *compiled) nodeMatch(v string) string {
	if len(c.labels) == 0 {
		return "(" + v + " WHERE " + notBookkeeping(v) + ")"
	}
	return "(" + v + ":" + strings.Join(c.labels, "|") + " WHERE " + notBookkeeping(v) + ")"
}

// checkDatabase validates a Neo4j database name (it is sent as a session
// setting, never as query text): 1..63 ASCII letters, digits, '.', '-' or
// '_', starting with a letter or digit.
func checkDatabase(name string) error {
	if name == "" || len(name) > 63 {
		return &IdentifierError{What: "database", Name: name, Reason: "must have 1 to 63 characters"}
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		alnum := ('A' <= b && b <= 'Z') || ('a' <= b && b <= 'z') || ('0' <= b && b <= '9')
		if !alnum && (i == 0 || (b != '.' && b != '-' && b != '_')) {
			return &IdentifierError{What: "database", Name: name,
				Reason: fmt.Sprintf("invalid character %q (letters, digits, '.', '-', '_')", b)}
		}
	}
	return nil
}
