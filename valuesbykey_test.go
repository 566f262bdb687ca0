package graphcloak

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// A reading under a key the graph lacks is named, even when the node it
// was meant for is then without a reading ("07" for karate's "7"): the
// misspelt key is the problem, and the node it may have meant is said;
// several unknown keys are named in sorted order.
func TestValuesByKeyNamesTheUnknownKey(t *testing.T) {
	g, _ := laplacian.Karate()
	m := map[string]float64{}
	for i := 0; i < g.N(); i++ {
		m[g.Key(i)] = 1
	}
	delete(m, "7")
	m["07"] = 1
	var ve *ValuesError
	_, err := ValuesByKey(g, m)
	if !errors.As(err, &ve) || ve.Key != "07" || errors.Is(err, ErrMissingValue) || !strings.Contains(err.Error(), `node "7" has no reading`) {
		t.Errorf("key 07 for node 7: %v; want it named as no node of the graph, node 7 as the one it may mean", err)
	}
	m["zz"], m["x"] = 1, 1
	_, err = ValuesByKey(g, m)
	if !errors.As(err, &ve) || ve.Key != "07" || !strings.Contains(err.Error(), `2 other keys name no node either ("x", "zz")`) {
		t.Errorf("three unknown keys: %v; want 07 named, then x and zz", err)
	}
}
