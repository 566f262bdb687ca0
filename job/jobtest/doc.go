// Package jobtest holds the stand-in package job's tests run against: an
// in-memory Backend and ledger (Memory) with the semantics of the Neo4j
// ones, which can crash at any step and tells which documented state
// (job.State) a stopped release or private answer left. Releases run
// against stores' Neo4j backend; only tests import this package.
package jobtest
