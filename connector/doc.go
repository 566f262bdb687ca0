// Package connector reads graph projections from Neo4j and writes results
// back as node properties, mirroring Neo4j Graph Data Science naming
// (nodeLabels, relationshipTypes, relationshipWeightProperty, writeProperty,
// nodePropertiesWritten, writeMillis).
//
// Conventions:
//   - Relationships are read undirected: (a)-[r]->(b) is the edge {a, b};
//     parallel and opposite relationships add their weights (the
//     multigraph Laplacian), self-loops are skipped (laplacian.FromEdges,
//     the rule of every source: a loop does not change L = D − W); both
//     are counted in ReadStats. Without a weight property every weight is 1.
//   - Node index i is the order in which ReadGraph streamed the nodes;
//     node keys are the NodeKeyProperty values, else element ids.
//   - Labels, relationship types and property names are validated by
//     CheckIdentifier, graphcloak's one identifier rule (config uses it
//     too): any name Neo4j accepts in backticks, at most 64 bytes, except
//     one with a backtick, a backslash (a literal \u0060 would close the
//     quote) or a control or format character; they are always
//     backtick-quoted; every value is a query parameter.
//   - Reads stream records one by one inside managed read transactions;
//     writes run in batches (UNWIND $rows … SET n += row.props) inside
//     managed write transactions, so each batch is idempotent and may be
//     retried.
//   - Run lifecycle (run.go): StartRun creates a (:GraphcloakRun) record
//     "running" with a lease that a background heartbeat renews every
//     lease/3; Run.Succeed sets "succeeded" last, Run.Fail "failed" (even
//     after cancellation), so a crashed run never looks successful. A
//     "running" record whose lease expired is marked "abandoned" by the
//     next StartRun of its command and scope (AbandonExpired; a release
//     waiting for its scope bounds that by its wait: WithLockWait);
//     ResumeRun takes over a failed or abandoned run (attempts + 1).
//     ReadRun returns the record typed (RunRecord), FindRelease the
//     release run of a (scope, epoch).
//   - Run-bound writes: WriteProperties with WriteOptions.RunID and
//     BindProperty sets RunIDProperty(prop) = run id in the same SET as
//     the value and marks every run whose values it replaces "superseded"
//     (supersededBy). CheckRunBinding tells a reader whether a property
//     still holds one run's values.
//   - Durable release values: StoreReleaseValues keeps a release's public
//     output (keys, grid integers) in (:GraphcloakReleaseValues) before
//     the first node write; LoadReleaseValues gives it back for an exact
//     re-publication without a new charge or draw.
//   - Ledger implements privacy.Ledger in Neo4j: only InitScope creates a
//     scope (with its budget); the check and the charge happen in one
//     write transaction holding the scope node's lock.
//   - Timeouts: Options.ConnectTimeout (the Bolt handshake included),
//     AcquisitionTimeout and TransactionTimeout (server-side, plus a
//     client-side deadline for a stalled server) give *UnreachableError or
//     *TimeoutError. The driver's retries of a managed transaction
//     (MaxTransactionRetryTime) end within TransactionTimeout, inside
//     that deadline.
//   - Errors are typed: *UnreachableError, *TimeoutError and *AuthError
//     (connection), *QueryError (the server refused a query),
//     *IdentifierError, *SchemaError, *DataError and *ArgumentError
//     (input), *RunNotFoundError, *RunStateError, *LeaseLostError and
//     *BindingError (run records). Passwords never appear in them.
//   - One driver per process (Connect/Close); every call takes a context.
package connector
