// Package writeback is the Neo4j side of graphcloak's runs: Neo4j, the
// job.Backend of a release and a localisation (run records with leases
// and the scope claim, the output registry, values stored durably, writes
// bound to the run). The order of the steps — and so their crash safety —
// is job's (job.Execute, job.ExecuteLocate); this package only carries
// each step to the database.
package writeback
