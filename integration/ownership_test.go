package integration

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// dropFlag removes flag and its value from args.
func dropFlag(args []string, flag string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == flag && i+1 < len(args) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// TestReleaseValuesOwned: a release's values
// are trusted only when they are provably its own, and no other command
// writes over them.
//
//   - unmask --release-run over the same nodes keyed by elementId instead
//     of the release's key property regenerates the noise of other keys:
//     refused by the graph fingerprint, no rows printed;
//   - locate and communities with --community-write-property naming the
//     release's property are refused before writing (the property is
//     registered as release values), and the values stay;
//   - a value changed by hand without touching its run id (the binding
//     still holds) is caught by the digest the run recorded: unmask and
//     locate --release-run refuse.
func TestReleaseValuesOwned(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{15, 15}, 0.4, 0.05)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DETACH DELETE r", map[string]any{"p": e.scope})
	})
	key := filepath.Join(t.TempDir(), "noise.key")
	if r := runCLI(t, s.Password, "keygen", "--out", key); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	a := releaseJSON(t, e, e.releaseArgs("epoch-A", "--key", key))["runId"].(string)
	unmask := func(flags []string) cliResult {
		args := append([]string{"unmask", "--key", key}, flags...)
		return runCLI(t, s.Password, append(args, "--release-run", a, "-o", "json")...)
	}
	if r := unmask(e.projectionFlags()); r.Code != 0 {
		t.Fatalf("unmask A: exit %d: %s", r.Code, r.Stderr)
	}

	// Defect 2: the same nodes keyed by elementId.
	if r := unmask(dropFlag(e.projectionFlags(), "--node-key-property")); r.Code != 3 || strings.Contains(r.Stdout, "rows") ||
		!strings.Contains(r.Stderr, "not the one release") {
		t.Errorf("unmask keyed by elementId: exit %d, stdout %.200q, stderr %q; want exit 3 naming the graph, no rows", r.Code, r.Stdout, r.Stderr)
	}

	// Defect 3: other writers into the release's property.
	before := nodeValues(t, d, f.Label, e.write)
	second := e.write + "B"
	b := releaseJSON(t, e, replaceFlag(e.releaseArgs("epoch-B"), "--write-property", second))["runId"].(string)
	loc := replaceFlag(replaceFlag(e.locateArgs(b), "--released-property", second), "--community-write-property", e.write)
	if r := runCLI(t, s.Password, loc...); r.Code != 3 || !strings.Contains(r.Stderr, "release values") {
		t.Errorf("locate --community-write-property <release's property>: exit %d, want 3 naming release values: %s", r.Code, r.Stderr)
	}
	comm := append(append([]string{"communities"}, e.projectionFlags()...), "--community-write-property", e.write)
	if r := runCLI(t, s.Password, comm...); r.Code != 3 || !strings.Contains(r.Stderr, "release values") {
		t.Errorf("communities --community-write-property <release's property>: exit %d, want 3 naming release values: %s", r.Code, r.Stderr)
	}
	if after := nodeValues(t, d, f.Label, e.write); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the release's values changed although every writer was refused")
	}
	if r := unmask(e.projectionFlags()); r.Code != 0 {
		t.Errorf("unmask A after the refused writers: exit %d: %s", r.Code, r.Stderr)
	}

	// One value changed by hand, its run id untouched: the digest differs.
	query(t, d, "MATCH (n:`"+f.Label+"`) WITH n ORDER BY n.key LIMIT 1 SET n[$p] = n[$p] + 1.0", map[string]any{"p": e.write})
	if r := unmask(e.projectionFlags()); r.Code != 3 || !strings.Contains(r.Stderr, "digest") || strings.Contains(r.Stdout, "rows") {
		t.Errorf("unmask after a value changed: exit %d, stderr %q; want exit 3 naming the digest", r.Code, r.Stderr)
	}
	if r := runCLI(t, s.Password, e.locateArgs(a)...); r.Code != 3 || !strings.Contains(r.Stderr, "digest") {
		t.Errorf("locate --release-run after a value changed: exit %d, want 3 naming the digest: %s", r.Code, r.Stderr)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(fmt.Sprintf("{%q: %q}", "d", runRecord(t, d, a)["valuesDigest"])), &rec); err != nil || len(fmt.Sprint(rec["d"])) != 64 {
		t.Errorf("run A records no 64-digit valuesDigest: %v", rec["d"])
	}
}
