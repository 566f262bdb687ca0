// Loads examples/rooms.csv into Neo4j as (:Room {roomId})-[:DOOR {conductance}]->(:Room),
// the projection used by the Neo4j example in README.md and docs/neo4j.md:
//   cypher-shell -u neo4j -p "$GRAPHCLOAK_NEO4J_PASSWORD" -f examples/load-neo4j.cypher
// It is idempotent (MERGE) and touches only :Room nodes and :DOOR relationships.
UNWIND [
  [101,102,1.0],[102,103,1.0],[103,104,0.8],[104,105,1.0],[105,106,1.2],[106,101,0.9],
  [101,104,0.5],[102,105,0.5],
  [201,202,1.0],[202,203,1.1],[203,204,1.0],[204,205,0.7],[205,206,1.0],[206,201,1.0],
  [201,204,0.6],[203,206,0.4],
  [103,203,0.3]
] AS e
MERGE (a:Room {roomId: e[0]})
MERGE (b:Room {roomId: e[1]})
MERGE (a)-[d:DOOR]->(b)
SET d.conductance = e[2];
