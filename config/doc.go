// Package config is the one place viper lives: it merges a YAML file,
// GRAPHCLOAK_* environment variables and command-line flags into a typed
// Config and validates it once.
//
// Precedence, highest first:
//
//	flags > environment (GRAPHCLOAK_…) > config file > defaults
//
// The config file is --config FILE, else $XDG_CONFIG_HOME/graphcloak/config.yaml
// (~/.config/graphcloak/config.yaml when XDG_CONFIG_HOME is unset) when it
// exists. Unknown keys in the file are an error (a misspelt key silently
// ignored is a wrong run).
//
// Every key has a dotted name (its YAML path), an environment variable —
// GRAPHCLOAK_ + the name upper-cased with "." → "_", e.g. neo4j.password →
// GRAPHCLOAK_NEO4J_PASSWORD, projection.nodeLabels →
// GRAPHCLOAK_PROJECTION_NODELABELS (lists comma-separated) — and usually a
// kebab-case flag in Neo4j GDS spelling (--node-labels,
// --relationship-weight-property, --write-property, --batch-size, …). Keys
// lists them all; "graphcloak config show" prints them with their values
// and sources.
//
// Example file:
//
//	neo4j:
//	  uri: neo4j+s://graph.example.com:7687
//	  user: graphcloak
//	  database: sensors        # password: set GRAPHCLOAK_NEO4J_PASSWORD instead
//	projection:
//	  nodeLabels: [Room]
//	  relationshipTypes: [DOOR]
//	  relationshipWeightProperty: conductance
//	  nodeKeyProperty: roomId
//	write:
//	  writeProperty: private_temperature
//	  batchSize: 10000
//	privacy:
//	  tau: 1
//	  epsilon: 1
//	  delta: 1.0e-6
//	  epsilonTotal: 10
//	  deltaTotal: 1.0e-5
//	  ledger: neo4j
//	  scope: building-7
//
// Named projections (graphcloak projection save) live in the same file under
// "projections:", a mapping of names to the four projection keys; --projection
// NAME (projection.name) applies one, and a projection key also set
// otherwise must agree with it. Durations in seconds (neo4j.*Timeout) take
// plain seconds or a unit ("15s", "2m"). GRAPHCLOAK_* variables that are no
// key are warned about.
//
// Load does not validate; Config.Validate checks everything once, before
// any connection: URI scheme (bolt or neo4j, optional +s/+ssc, no
// credentials in the URI), names (the connector's one rule: any name
// Neo4j accepts in backticks, 1..64 bytes, without backticks, backslashes
// or control characters), numbers finite and in range (ε > 0, 0 < δ < 1, τ > 0,
// α > 0, batch size ≥ 1).
//
// Secrets: the Neo4j password is never logged, printed or put in an error.
// Config.Redacted and Loaded.Entries show it as *****; a --password flag is
// accepted with a warning (it is visible in the process list).
package config
