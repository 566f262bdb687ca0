// Package integration holds end-to-end tests that run the graphcloak
// binary against a real Neo4j server. The server comes from NEO4J_URI
// (scripts/test.sh starts one from Maven Central when it is unset).
package integration
