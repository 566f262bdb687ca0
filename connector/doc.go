// Package connector reads graph projections from Neo4j and writes results
// back as node properties, mirroring Neo4j Graph Data Science naming
// (nodeLabels, relationshipTypes, relationshipWeightProperty, writeProperty).
//
// Conventions:
//   - Relationships are read undirected; a missing weight property is 1.
//   - Labels, relationship types and property names are validated against
//     ^[A-Za-z_][A-Za-z0-9_]*$ and always backtick-quoted; every value is a
//     query parameter.
//   - Writes run in batches inside managed write transactions, so each
//     batch is idempotent; the run record is written last.
//   - One driver per process; every call takes a context.
package connector
