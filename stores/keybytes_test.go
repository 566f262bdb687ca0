package stores

import (
	"testing"

	"github.com/graphcloak/graphcloak/community"
)

// TestKeyBytes: Neo4j's keys and a file's are counted, a generated
// graph's (it has none) are not.
func TestKeyBytes(t *testing.T) {
	for _, c := range []struct {
		spec string
		want int64
	}{
		{Neo4jSpec, community.Neo4jKeyBytes},
		{"file:edges.csv", community.FileKeyBytes},
		{"karate", 0},
		{"sbm:sizes=10x10,pin=0.5,pout=0.1", 0},
	} {
		if got := keyBytes(c.spec); got != c.want {
			t.Errorf("KeyBytes(%q) = %d, want %d", c.spec, got, c.want)
		}
	}
}
