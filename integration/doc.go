// Package integration holds end-to-end tests that run the graphcloak
// binary against a real Neo4j server. The server comes from NEO4J_URI,
// NEO4J_USER and NEO4J_PASSWORD; scripts/test.sh starts Neo4j Community
// 5.26 from Maven Central (neo4j-harness on OpenJDK 17, see
// integration/neo4j/Launcher.java) when NEO4J_URI is unset. Without a
// server the tests skip and say why, unless GRAPHCLOAK_REQUIRE_NEO4J=1
// (CI, scripts/test.sh), where a missing server fails them.
//
// The tests:
//   - connector level: an SBM fixture (community property, observed
//     values, random weights, a self-loop, parallel and opposite
//     relationships) read back through a projection and compared with the
//     generated graph (elementId and key-property modes); idempotent
//     batched write-back; hostile label/type/property names (including a
//     literal \u0060) refused before any query with nothing written;
//     unknown label/type/property, missing values, bad weights, duplicate
//     keys; wrong password and unreachable server; the run record; the
//     Neo4j privacy ledger (exact spend, refusal, repeated release id,
//     budget mismatch, 12 concurrent clients never overspending);
//   - end to end through the binary built from cmd/graphcloak: release →
//     locate with every property, count and run record checked, re-runs,
//     and the failure cases with their exit codes;
//   - a Slurm job array (TestSlurmAuditArray): the audit of a 2 000-node
//     graph as 4 array tasks through examples/slurm on the cluster
//     SLURM_CONF names or scripts/slurm.sh starts, merged byte for byte to
//     the single run's certificate, a failed task named and resubmitted;
//     without Slurm it skips, unless GRAPHCLOAK_REQUIRE_SLURM=1 or CI=true;
//   - a kill test that starts its own second server (scripts/neo4j.sh on a
//     free port), SIGKILLs it in the middle of a write-back, restarts it on
//     the same data and re-runs (skipped with -short).
//
// Each test loads its data under labels unique to the run and deletes it
// afterwards, so tests can share one server. The tests that mostly wait —
// on a server of their own (the kill test, the sandboxed plugin, the
// Neo4j guide) or on a stopped release's lease or transaction timeout
// (the epoch holders) — call t.Parallel and run together, eight at a time
// (TestMain; -parallel overrides it), after the others. The others run
// one at a time: some check the whole server (TestInjectionCorpus: no
// label, type or property key appears but the names it gave, and every
// bookkeeping node is unchanged), and some assert how long a step took.
package integration
