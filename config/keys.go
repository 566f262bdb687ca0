package config

import (
	"strings"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/privacy"
)

// Key describes one configuration key: its dotted name (the YAML path),
// the command-line flag and environment variable that set it, and its
// default.
type Key struct {
	Name    string // dotted key, e.g. "neo4j.password" (YAML: neo4j: {password: …})
	Flag    string // kebab-case flag name in GDS spelling, "" if none
	Default any    // string, []string, int, int64 or float64
	Usage   string
	Secret  bool // never printed, logged or put in an error
	// Seconds: a float64 duration in seconds, also given as "15s" or "2m".
	Seconds bool

	field func(*Config) any // pointer to the Config field
}

// Env is the environment variable that sets the key: GRAPHCLOAK_ followed
// by the dotted name upper-cased with "." replaced by "_", e.g.
// GRAPHCLOAK_NEO4J_PASSWORD, GRAPHCLOAK_PROJECTION_NODELABELS.
func (k Key) Env() string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(k.Name, ".", "_"))
}

const envPrefix = "GRAPHCLOAK"

// keyTable is every configuration key, in the order config show prints them.
var keyTable = []Key{
	{Name: "neo4j.uri", Flag: "uri", Default: "neo4j://localhost:7687", Usage: "Neo4j URI: bolt:// or neo4j://, optionally +s or +ssc",
		field: func(c *Config) any { return &c.Neo4j.URI }},
	{Name: "neo4j.user", Flag: "user", Default: "neo4j", Usage: "Neo4j user (basic auth)",
		field: func(c *Config) any { return &c.Neo4j.User }},
	{Name: "neo4j.password", Flag: "password", Default: "", Secret: true,
		Usage: "Neo4j password; visible in the process list, prefer GRAPHCLOAK_NEO4J_PASSWORD",
		field: func(c *Config) any { return &c.Neo4j.Password }},
	{Name: "neo4j.database", Flag: "database", Default: "neo4j", Usage: "Neo4j database name",
		field: func(c *Config) any { return &c.Neo4j.Database }},
	{Name: "neo4j.connectTimeout", Flag: "connect-timeout", Seconds: true, Default: 15.0, Usage: "how long to connect (Bolt handshake included) before giving up: seconds or a duration (15s)",
		field: func(c *Config) any { return &c.Neo4j.ConnectTimeout }},
	{Name: "neo4j.acquisitionTimeout", Flag: "acquisition-timeout", Seconds: true, Default: 30.0, Usage: "how long to wait for a pooled connection: seconds or a duration (30s)",
		field: func(c *Config) any { return &c.Neo4j.AcquisitionTimeout }},
	{Name: "neo4j.transactionTimeout", Flag: "transaction-timeout", Seconds: true, Default: 120.0, Usage: "how long a transaction may run, seconds or a duration (server-side limit; the client gives up after it plus the acquisition timeout)",
		field: func(c *Config) any { return &c.Neo4j.TransactionTimeout }},

	{Name: "projection.name", Flag: "projection", Default: "", Usage: "a projection saved by \"graphcloak projection save NAME\": its node labels, relationship types, weight and key properties",
		field: func(c *Config) any { return &c.Projection.Name }},
	{Name: "projection.nodeLabels", Flag: "node-labels", Default: []string{}, Usage: "node labels to read (comma-separated; empty: all)",
		field: func(c *Config) any { return &c.Projection.NodeLabels }},
	{Name: "projection.relationshipTypes", Flag: "relationship-types", Default: []string{}, Usage: "relationship types to read (comma-separated; empty: all)",
		field: func(c *Config) any { return &c.Projection.RelationshipTypes }},
	{Name: "projection.relationshipWeightProperty", Flag: "relationship-weight-property", Default: "", Usage: "relationship weight property (empty: unweighted)",
		field: func(c *Config) any { return &c.Projection.RelationshipWeightProperty }},
	{Name: "projection.nodeKeyProperty", Flag: "node-key-property", Default: "", Usage: "node key property (empty: elementId)",
		field: func(c *Config) any { return &c.Projection.NodeKeyProperty }},
	{Name: "projection.valueProperty", Flag: "value-property", Default: "", Usage: "node property holding a raw reading already in the database",
		field: func(c *Config) any { return &c.Projection.ValueProperty }},

	{Name: "write.writeProperty", Flag: "write-property", Default: "graphcloak_value", Usage: "property receiving the released private value",
		field: func(c *Config) any { return &c.Write.WriteProperty }},
	{Name: "write.massProperty", Flag: "mass-property", Default: "graphcloak_mass", Usage: "property receiving the recovered source mass",
		field: func(c *Config) any { return &c.Write.MassProperty }},
	{Name: "write.communityWriteProperty", Flag: "community-write-property", Default: "graphcloak_community", Usage: "property receiving the community id",
		field: func(c *Config) any { return &c.Write.CommunityWriteProperty }},
	{Name: "write.probabilityProperty", Flag: "probability-property", Default: "graphcloak_probability", Usage: "property receiving the community's probability",
		field: func(c *Config) any { return &c.Write.ProbabilityProperty }},
	{Name: "write.rankProperty", Flag: "rank-property", Default: "graphcloak_rank", Usage: "property receiving the community's rank (1 = most likely)",
		field: func(c *Config) any { return &c.Write.RankProperty }},
	{Name: "write.batchSize", Flag: "batch-size", Default: 10000, Usage: "rows per write transaction",
		field: func(c *Config) any { return &c.Write.BatchSize }},
	{Name: "write.concurrency", Flag: "concurrency", Default: 4, Usage: "worker goroutines",
		field: func(c *Config) any { return &c.Write.Concurrency }},
	{Name: "write.randomSeed", Flag: "random-seed", Default: int64(1), Usage: "random seed (≥ 0) of community detection and of simulations (never of privacy noise)",
		field: func(c *Config) any { return &c.Write.RandomSeed }},

	{Name: "privacy.tau", Flag: "tau", Default: 1.0, Usage: "diffusion time τ > 0",
		field: func(c *Config) any { return &c.Privacy.Tau }},
	{Name: "privacy.alpha", Flag: "alpha", Default: 1.0, Usage: "neighbourhood radius α > 0 (EMD, hops)",
		field: func(c *Config) any { return &c.Privacy.Alpha }},
	{Name: "privacy.epsilon", Flag: "epsilon", Default: 1.0, Usage: "ε > 0 of one release",
		field: func(c *Config) any { return &c.Privacy.Epsilon }},
	{Name: "privacy.delta", Flag: "delta", Default: 1e-5, Usage: "δ in (0,1) of one release",
		field: func(c *Config) any { return &c.Privacy.Delta }},
	{Name: "privacy.mechanism", Flag: "mechanism", Default: "discrete", Usage: "noise mechanism: " + privacy.ReleaseMechanismHelp(),
		field: func(c *Config) any { return &c.Privacy.Mechanism }},
	{Name: "privacy.epsilonTotal", Flag: "epsilon-total", Default: 0.0, Usage: "lifetime ε budget of the scope, set once by budget --init (required there; no default budget)",
		field: func(c *Config) any { return &c.Privacy.EpsilonTotal }},
	{Name: "privacy.deltaTotal", Flag: "delta-total", Default: 0.0, Usage: "lifetime δ budget of the scope, set once by budget --init (required there; no default budget)",
		field: func(c *Config) any { return &c.Privacy.DeltaTotal }},
	{Name: "privacy.keyFile", Flag: "key", Default: "", Usage: "noise key file (0600) for keyed noise; empty: crypto/rand",
		field: func(c *Config) any { return &c.Privacy.KeyFile }},
	{Name: "privacy.ledgerKeyFile", Flag: "ledger-key", Default: "", Usage: "key file (0600, from keygen) that keys the file ledger's hash chain (HMAC); empty: unkeyed SHA-256 chain",
		field: func(c *Config) any { return &c.Privacy.LedgerKeyFile }},
	{Name: "privacy.ledger", Flag: "ledger", Default: "", Usage: "privacy ledger: a file path or neo4j (default $XDG_STATE_HOME/graphcloak/ledger.json, one per user)",
		field: func(c *Config) any { return &c.Privacy.Ledger }},
	{Name: "privacy.scope", Flag: "scope", Default: "default", Usage: "ledger scope (what the budget protects)",
		field: func(c *Config) any { return &c.Privacy.Scope }},
	{Name: "privacy.epoch", Flag: "epoch", Default: "", Usage: "release epoch: a retry of a charged epoch republishes its stored values; \"auto\" names the current schedule slot (--slot) in UTC (default: a fresh run id)",
		field: func(c *Config) any { return &c.Privacy.Epoch }},
	{Name: "privacy.refuseAtChance", Flag: "refuse-at-chance", Default: false, Usage: "forecast a release as --dry-run does once σ is known, and refuse it before anything is charged (exit 3) when its verdict is noise: at --source-mass, or with none stated at every source mass up to 1000 units (never judged on the readings)",
		field: func(c *Config) any { return &c.Privacy.RefuseAtChance }},

	{Name: "recovery.estimator", Flag: "estimator", Default: "posterior", Usage: "recovery estimator: posterior, greedy, massls or bpdn",
		field: func(c *Config) any { return &c.Recovery.Estimator }},
	{Name: "recovery.sources", Flag: "sources", Default: 1, Usage: "number of sources K to look for",
		field: func(c *Config) any { return &c.Recovery.Sources }},
	{Name: "recovery.communities", Flag: "communities", Default: "leiden", Usage: "communities the answers, localisations and forecasts score: " + community.SpecKinds.Describe(func(k community.SpecKind) bool { return k.Located }),
		field: func(c *Config) any { return &c.Recovery.Communities }},

	{Name: "input.header", Flag: "header", Default: "auto", Usage: "first row of an input CSV (edge list, readings): auto (a header when it names its columns), yes or no",
		field: func(c *Config) any { return &c.Input.Header }},
	{Name: "input.duplicateEdges", Flag: "duplicate-edges", Default: "merge", Usage: "a pair of nodes given twice, in either direction, in an edge list or Neo4j: merge (one edge; refused when the weights differ), sum (parallel edges: weights add) or reject",
		field: func(c *Config) any { return &c.Input.DuplicateEdges }},

	{Name: "output", Flag: "output", Default: "table", Usage: "output format: table or json",
		field: func(c *Config) any { return &c.Output }},
	{Name: "logFormat", Flag: "log-format", Default: "text", Usage: "log format on stderr: text or json",
		field: func(c *Config) any { return &c.LogFormat }},
	{Name: "logLevel", Flag: "log-level", Default: "warn", Usage: "least severe log level on stderr: debug, info, warn (default: results on stdout, only warnings on stderr) or error (--quiet)",
		field: func(c *Config) any { return &c.LogLevel }},
}

// Keys returns every configuration key.
func Keys() []Key {
	return append([]Key(nil), keyTable...)
}

func keyByFlag(flag string) (Key, bool) {
	for _, k := range keyTable {
		if k.Flag == flag {
			return k, true
		}
	}
	return Key{}, false
}

func keyByName(name string) (Key, bool) {
	for _, k := range keyTable {
		if strings.EqualFold(k.Name, name) {
			return k, true
		}
	}
	return Key{}, false
}
