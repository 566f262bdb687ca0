// Package stores opens what a job runs against, once: Open, from a
// validated configuration, connects to Neo4j (when the graph, the ledger
// or the run records live there: the process's one driver), resolves the
// projection (a release run's, when the configuration names none), opens
// the ledger (read-only for a dry run) and returns the Stores; everything
// else is a method on them. They hand each job its environment — the
// backend of its run records, the loaders of its graph, readings and
// communities, the scope's last release — and load any graph spec
// (Neo4j through their connection, a generator, file:PATH, gt:NAME),
// run a community detection, load files into Neo4j, report the ledger
// and a scope's status. They carry the local release as they carry the
// central one: an epoch opened on their graph and ledger (OpenEpoch), its
// reports collected (Collect) and, closed, published to the projection
// (PublishCollected); the command calls none of package local's steps.
//
// Neo4j is the job.Backend of a release, a localisation and a private
// answer (run records with leases and the scope claim, the output
// registry, values stored durably, writes bound to the run). The order of
// a job's steps — and so their crash safety — is job's (job.Execute,
// job.ExecuteLocate); Neo4j only carries each step to the database.
// What is read from local files before anything is opened (readings, key
// files, a certificate) is internal/inputfiles' and internal/jobfiles'.
//
// Its errors name parameters (errkind.Param), never a command's flags;
// only the command (cmd/graphcloak) and the service import it.
package stores
