package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// N processes of the built binary, each a shard of the answer audit,
// merge to the certificate one process writes (the same norms and
// classes); a missing, repeated or foreign part is refused (exit 3), and
// an unsealed or edited part fails its MAC.
func TestAuditShardProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it")
	}
	isolateConfig(t)
	bin := buildGraphcloak(t)
	dir := t.TempDir()
	lkey := filepath.Join(dir, "ledger.key")
	k, _ := privacy.GenerateKey()
	if err := privacy.WriteKeyFile(lkey, k); err != nil {
		t.Fatal(err)
	}
	const n = 3
	state := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var c struct{ State json.RawMessage }
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		return string(c.State)
	}
	for _, c := range []struct{ graph, tau string }{{"karate", "30"}, {"pa:n=200,m=2,seed=3", "1"}} {
		name := strings.NewReplacer(":", "_", ",", "_", "=", "").Replace(c.graph)
		common := []string{"--graph", c.graph, "--tau", c.tau, "--ledger-key", lkey}
		single := filepath.Join(dir, name+".single.json")
		if _, stderr, code := runBin(t, bin, append([]string{"audit", "--save", single}, common...)...); code != 0 {
			t.Fatalf("%s: single run: exit %d: %s", name, code, stderr)
		}
		parts := make([]string, n)
		errs := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			parts[i] = filepath.Join(dir, fmt.Sprintf("%s.part-%d.json", name, i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, stderr, code := runBin(t, bin, append([]string{"audit", "--shard", fmt.Sprintf("%d/%d", i, n), "--save", parts[i]}, common...)...); code != 0 {
					errs[i] = fmt.Sprintf("exit %d: %s", code, stderr)
				}
			}()
		}
		wg.Wait()
		for i, e := range errs {
			if e != "" {
				t.Fatalf("%s: shard %d: %s", name, i, e)
			}
		}
		merged := filepath.Join(dir, name+".merged.json")
		if _, stderr, code := runBin(t, bin, append(append([]string{"audit", "merge", "--save", merged}, common...), parts...)...); code != 0 {
			t.Fatalf("%s: merge: exit %d: %s", name, code, stderr)
		}
		if state(merged) != state(single) {
			t.Fatalf("%s: the merged certificate's state differs from the single run's", name)
		}
		for what, args := range map[string][]string{
			"a missing part":  parts[1:],
			"a repeated part": append(append([]string{}, parts...), parts[0]),
		} {
			if _, stderr, code := runBin(t, bin, append(append([]string{"audit", "merge", "--save", filepath.Join(dir, "x.json")}, common...), args...)...); code != exitBadInput {
				t.Errorf("%s: %s: exit %d, want %d: %s", name, what, code, exitBadInput, stderr)
			}
		}
		// Another τ's parts are foreign.
		if _, stderr, code := runBin(t, bin, append([]string{"audit", "merge", "--save", filepath.Join(dir, "x.json"),
			"--graph", c.graph, "--tau", "0.7", "--ledger-key", lkey}, parts...)...); code != exitBadInput {
			t.Errorf("%s: parts of another τ: exit %d: %s", name, code, stderr)
		}
	}
	// An edited part fails its MAC.
	part := filepath.Join(dir, "karate.part-0.json")
	b, _ := os.ReadFile(part)
	if err := os.WriteFile(part, []byte(strings.Replace(string(b), `"precise":false`, `"precise":true`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runBin(t, bin, "audit", "merge", "--graph", "karate", "--tau", "30", "--ledger-key", lkey, "--save", filepath.Join(dir, "x.json"),
		part, filepath.Join(dir, "karate.part-1.json"), filepath.Join(dir, "karate.part-2.json"))
	if code != exitBadInput || !strings.Contains(stderr, "MAC") {
		t.Errorf("an edited part: exit %d: %s", code, stderr)
	}
}
