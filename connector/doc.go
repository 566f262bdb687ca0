// Package connector reads graph projections from Neo4j and writes results
// back as node properties, mirroring Neo4j Graph Data Science naming
// (nodeLabels, relationshipTypes, relationshipWeightProperty, writeProperty,
// nodePropertiesWritten, writeMillis).
//
// Conventions:
//   - Relationships are read undirected: (a)-[r]->(b) is the edge {a, b};
//     parallel and opposite relationships add their weights (the
//     multigraph Laplacian), self-loops are skipped; both are counted in
//     ReadStats. Without a weight property every weight is 1.
//   - Node index i is the order in which ReadGraph streamed the nodes;
//     node keys are the NodeKeyProperty values, else element ids.
//   - Labels, relationship types and property names are validated against
//     ^[A-Za-z_][A-Za-z0-9_]*$ (at most 64 bytes; a literal \u0060 or any
//     backslash or backtick is refused) and always backtick-quoted; every
//     value is a query parameter.
//   - Reads stream records one by one inside managed read transactions;
//     writes run in batches (UNWIND $rows … SET n += row.props) inside
//     managed write transactions, so each batch is idempotent and may be
//     retried.
//   - A (:GraphcloakRun) record is created "running" and set to
//     "succeeded" last, so a crashed run never looks successful.
//   - Ledger implements privacy.Ledger in Neo4j: the check and the charge
//     happen in one write transaction holding the scope node's lock.
//   - Errors are typed: *UnreachableError and *AuthError (connection),
//     *QueryError (the server refused a query), *IdentifierError,
//     *SchemaError, *DataError and *ArgumentError (input). Passwords never
//     appear in them.
//   - One driver per process (Connect/Close); every call takes a context.
package connector
