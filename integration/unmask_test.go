package integration

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestUnmaskFromNeo4j: a keyed release written to Neo4j is unmasked from
// the database by the key holder. The oracle is the fixture's own observed
// values: unmasking must give each one back to within half a grid step,
// while the released values differ from them by the noise. Without the key,
// or with another key, the true values do not come back.
func TestUnmaskFromNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{15, 15}, 0.4, 0.05)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE (r.parameters CONTAINS $p OR r.scope = $p OR r.writeProperty = $p) DELETE r", map[string]any{"p": e.scope})
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = $s DELETE l", map[string]any{"s": e.scope})
	})
	dir := t.TempDir()
	key, other := filepath.Join(dir, "noise.key"), filepath.Join(dir, "other.key")
	for _, k := range []string{key, other} {
		if r := runCLI(t, s.Password, "keygen", "--out", k); r.Code != 0 {
			t.Fatalf("keygen: exit %d: %s", r.Code, r.Stderr)
		}
	}
	r := runCLI(t, s.Password, e.releaseArgs("epoch-keyed", "--key", key)...)
	if r.Code != 0 {
		t.Fatalf("keyed release: exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	var rel struct {
		RunID string  `json:"runId"`
		Sigma float64 `json:"sigma"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rel); err != nil {
		t.Fatal(err)
	}

	unmask := func(k string) map[string]float64 {
		args := append([]string{"unmask", "--key", k}, e.projectionFlags()...)
		r := runCLI(t, s.Password, append(args, "--release-run", rel.RunID, "-o", "json")...)
		if r.Code != 0 {
			t.Fatalf("unmask: exit %d\nstderr: %s", r.Code, r.Stderr)
		}
		var res struct {
			GridExponent int `json:"gridExponent"`
			Rows         []struct {
				Key   string  `json:"key"`
				Value float64 `json:"value"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != len(f.Keys) {
			t.Fatalf("unmask gave %d rows, want %d", len(res.Rows), len(f.Keys))
		}
		out := map[string]float64{"gridStep": math.Ldexp(1, -res.GridExponent)}
		for _, row := range res.Rows {
			out[row.Key] = row.Value
		}
		return out
	}
	got := unmask(key)
	step := got["gridStep"]
	for i, k := range f.Keys {
		v, ok := got[strconv.FormatInt(k, 10)]
		if !ok || math.Abs(v-f.Obs[i]) > step/2 {
			t.Fatalf("node %d: unmasked %v (present %v), true %v, grid step %v", k, v, ok, f.Obs[i], step)
		}
	}
	// Another key is refused by its fingerprint (the release records the
	// key's), never turned into wrong "exact" values.
	args := append([]string{"unmask", "--key", other}, e.projectionFlags()...)
	r = runCLI(t, s.Password, append(args, "--release-run", rel.RunID, "-o", "json")...)
	if r.Code != 3 || !strings.Contains(r.Stderr, "key fingerprints differ") || strings.Contains(r.Stdout, "rows") {
		t.Fatalf("unmask with another key: exit %d, stdout %q, stderr %q; want exit 3 naming the fingerprint", r.Code, r.Stdout, r.Stderr)
	}
}
