package stores

import (
	"strings"

	"github.com/graphcloak/graphcloak/community"
)

// keyBytes is the memory a node's key takes in a graph loaded from spec
// (Stores.LoadGraph), as community.PeakBytes counts it: Neo4j's and a file's
// keys; a generated graph stores none.
func keyBytes(spec string) int64 {
	switch {
	case spec == Neo4jSpec:
		return community.Neo4jKeyBytes
	case strings.HasPrefix(spec, "file:"):
		return community.FileKeyBytes
	}
	return 0
}
