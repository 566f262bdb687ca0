// Package stores opens what a job runs against, once: from a validated
// configuration, Open connects to Neo4j (when the graph or the ledger
// lives there), resolves the projection (a release run's, when the
// configuration names none), opens the ledger (read-only for a dry run)
// and hands each job its environment — the backend of its run records,
// the loaders of its graph, readings and communities, the scope's last
// release.
//
// It also holds what those are made of: graph loading from any graph spec
// (Neo4j, a generator, file:PATH, gt:NAME), the configured ledger,
// release-run records, serve's community cache, the readings reader, and
// Neo4j, the job.Backend of a release, a localisation and a private answer
// (run records with leases and the scope claim, the output registry,
// values stored durably, writes bound to the run). The order of a job's
// steps — and so their crash safety — is job's (job.Execute,
// job.ExecuteLocate); Neo4j only carries each step to the database.
//
// Its errors name parameters (errkind.Param), never a command's flags;
// only the command (cmd/graphcloak) and the service import it.
package stores
