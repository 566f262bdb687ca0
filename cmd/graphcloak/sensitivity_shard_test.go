package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// buildGraphcloak builds the command into a temporary directory.
func buildGraphcloak(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "graphcloak")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// runBin runs the built command and returns stdout, stderr and the exit code.
func runBin(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestSensitivityShardProcesses (issue 51, deliver 3): N processes of the
// built command, each --shard i/N --save, run at once; sensitivity merge
// of their partial certificates writes the certificate the single run
// wrote — Δ2, slack, maximising edge, exactness and method, Created and
// the MAC over it aside — sealed under the ledger key like it. Dense
// (karate: not divided), the Chebyshev columns, Lanczos and Auto.
func TestSensitivityShardProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it 26 times")
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
	for _, c := range []struct{ graph, tau, method string }{
		{"karate", "0.5", "auto"},
		{"pa:n=400,m=3,seed=2", "1", "columns"},
		{"pa:n=400,m=3,seed=2", "1", "lanczos"},
		{"sbm:sizes=300x300,pin=0.05,pout=0.002,seed=7", "2", "auto"},
	} {
		name := strings.NewReplacer(":", "_", ",", "_", "=", "").Replace(c.graph) + "-" + c.method
		common := []string{"sensitivity", "--graph", c.graph, "--tau", c.tau, "--method", c.method, "--ledger-key", lkey}
		single := filepath.Join(dir, name+".single.json")
		if _, stderr, code := runBin(t, bin, append(common, "--save", single)...); code != 0 {
			t.Fatalf("%s: single run: exit %d: %s", name, code, stderr)
		}
		parts := make([]string, n)
		var wg sync.WaitGroup
		errs := make([]string, n)
		for i := range n {
			parts[i] = filepath.Join(dir, fmt.Sprintf("%s.part-%d.json", name, i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, stderr, code := runBin(t, bin, append(common, "--shard", fmt.Sprintf("%d/%d", i, n), "--save", parts[i], "-o", "json")...)
				if code != 0 {
					errs[i] = fmt.Sprintf("exit %d: %s", code, stderr)
					return
				}
				validate(t, "sensitivity", out)
				var res map[string]any
				json.Unmarshal([]byte(out), &res)
				if res["certified"] != false || res["shard"] == nil {
					errs[i] = "a shard's output claims to be certified or has no shard: " + out
				}
			}()
		}
		wg.Wait()
		for i, e := range errs {
			if e != "" {
				t.Fatalf("%s: shard %d/%d: %s", name, i, n, e)
			}
		}
		merged := filepath.Join(dir, name+".merged.json")
		out, stderr, code := runBin(t, bin, append([]string{"sensitivity", "merge", "--ledger-key", lkey, "--save", merged, "-o", "json"}, parts...)...)
		if code != 0 {
			t.Fatalf("%s: merge: exit %d: %s", name, code, stderr)
		}
		validate(t, "sensitivity", out)
		want, err := sensitivity.LoadCertificate(single)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sensitivity.LoadCertificate(merged)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.CheckMAC(k.CertificateMACKey()); err != nil {
			t.Errorf("%s: the merged certificate is not sealed under the ledger key: %v", name, err)
		}
		if d := certDiff(got, want); d != "" {
			t.Errorf("%s τ=%s: %d shards merged differ from the single run:\n%s", name, c.tau, n, d)
		}
		var res map[string]any
		json.Unmarshal([]byte(out), &res)
		if res["delta2"] != want.Delta2 || res["exact"] != want.Exact || res["shards"] != float64(n) {
			t.Errorf("%s: merge output %s, certificate %+v", name, out, want)
		}
		// Merging the same files again writes the same bytes.
		again := filepath.Join(dir, name+".again.json")
		if _, stderr, code := runBin(t, bin, append([]string{"sensitivity", "merge", "--ledger-key", lkey, "--save", again}, parts...)...); code != 0 {
			t.Fatalf("%s: second merge: exit %d: %s", name, code, stderr)
		}
		a, _ := os.ReadFile(merged)
		b, _ := os.ReadFile(again)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two merges of the same parts differ:\n%s\n%s", name, a, b)
		}
	}
}

// certDiff compares certificates as JSON with created and mac left out;
// the column scheme's two names count as one
// (docs/sharding.md).
func certDiff(got, want sensitivity.Certificate) string {
	columns := func(m string) bool { return m == "chebyshev-columns" || m == "bound-and-refine" }
	if columns(got.Method) && columns(want.Method) {
		got.Method = want.Method
	}
	got.Created, want.Created = time.Time{}, time.Time{}
	got.MAC, want.MAC = "", ""
	a, _ := json.MarshalIndent(got, "", "  ")
	b, _ := json.MarshalIndent(want, "", "  ")
	if !bytes.Equal(a, b) {
		return fmt.Sprintf("merged %s\nsingle %s", a, b)
	}
	return ""
}

// TestSensitivityMergeRefuses: sensitivity merge refuses, exit 3 with the
// reason and no file written, a missing, duplicated or foreign part (other
// τ, other graph, other N), a part edited after it was sealed and, with a
// ledger key, an unsealed one; --shard needs --save and a valid i/N.
func TestSensitivityMergeRefuses(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	lkey := filepath.Join(dir, "ledger.key")
	k, _ := privacy.GenerateKey()
	if err := privacy.WriteKeyFile(lkey, k); err != nil {
		t.Fatal(err)
	}
	shard := func(name, graph, tau, shard string, key bool) string {
		path := filepath.Join(dir, name+".json")
		args := []string{"--graph", graph, "--tau", tau, "--method", "columns", "--shard", shard, "--save", path}
		if key {
			args = append(args, "--ledger-key", lkey)
		}
		if _, code, err := runSensitivityCLI(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %v", name, code, err)
		}
		return path
	}
	const pa = "pa:n=300,m=3,seed=1"
	p0, p1, p2 := shard("p0", pa, "1", "0/3", true), shard("p1", pa, "1", "1/3", true), shard("p2", pa, "1", "2/3", true)
	edited := filepath.Join(dir, "edited.json")
	data, _ := os.ReadFile(p1)
	var m map[string]any
	json.Unmarshal(data, &m)
	m["delta2"] = m["delta2"].(float64) / 2
	data, _ = json.Marshal(m)
	os.WriteFile(edited, data, 0o600)
	out := filepath.Join(dir, "merged.json")
	merge := func(parts ...string) (string, int) {
		var stdout, stderr strings.Builder
		code := runArgs(context.Background(), append([]string{"sensitivity", "merge", "--ledger-key", lkey, "--save", out}, parts...), &stdout, &stderr)
		return stderr.String(), code
	}
	if stderr, code := merge(p0, p1, p2); code != 0 {
		t.Fatalf("the good parts: exit %d: %s", code, stderr)
	}
	os.Remove(out)
	for name, c := range map[string]struct {
		parts []string
		want  string
	}{
		"missing":                       {[]string{p0, p2}, "shard 1/3 missing"},
		"duplicated":                    {[]string{p0, p1, p1, p2}, "shard 1/3 is given twice"},
		"tau":                           {[]string{p0, shard("tau", pa, "2", "1/3", true), p2}, "its tau is 2"},
		"graph":                         {[]string{p0, shard("graph", "pa:n=300,m=3,seed=2", "1", "1/3", true), p2}, "its graph is"},
		"count":                         {[]string{p0, shard("count", pa, "1", "1/2", true), p2}, "its shard count N is 2"},
		"edited":                        {[]string{p0, edited, p2}, "MAC does not verify"},
		"sealed without the ledger key": {[]string{p0, shard("unsealed", pa, "1", "1/3", false), p2}, "MAC does not verify"},
		"not a part":                    {[]string{p0, filepath.Join(dir, "nothing.json"), p2}, "no such file"},
	} {
		stderr, code := merge(c.parts...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d saying %q", name, code, stderr, exitBadInput, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a certificate was written", name)
			os.Remove(out)
		}
	}
	for _, args := range [][]string{
		{"sensitivity", "--graph", pa, "--shard", "1/3"},                             // no --save
		{"sensitivity", "--graph", pa, "--shard", "3/3", "--save", out},              // i ≥ N
		{"sensitivity", "--graph", pa, "--shard", "1/3", "--save", out, "--dry-run"}, // nothing to shard
		{"sensitivity", "merge", p0, p1, p2},                                         // no --save
		{"sensitivity", "merge", "--save", out},                                      // no parts
	} {
		if code := runArgs(context.Background(), args, io.Discard, io.Discard); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
