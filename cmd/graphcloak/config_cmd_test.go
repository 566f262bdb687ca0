package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigShow(t *testing.T) {
	isolateConfig(t)
	const pw = "env-Secret-99"
	t.Setenv("GRAPHCLOAK_NEO4J_PASSWORD", pw)
	t.Setenv("GRAPHCLOAK_PRIVACY_EPSILON", "2")
	file := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(file, []byte("privacy:\n  epsilon: 3\n  delta: 1e-7\nwrite:\n  batchSize: 500\n"), 0o600)
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "config", "show", "--config", file, "--batch-size", "7", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, pw) {
		t.Fatal("password printed")
	}
	var show struct {
		File    string
		Entries []struct {
			Key, Env, Source string
			Value            any
		}
	}
	if err := json.Unmarshal([]byte(stdout), &show); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]any{
		"neo4j.password":  {"*****", "env"},
		"privacy.epsilon": {2.0, "env"},
		"privacy.delta":   {1e-7, "file"},
		"write.batchSize": {7.0, "flag"},
		"privacy.tau":     {1.0, "default"},
	}
	for _, e := range show.Entries {
		if w, ok := want[e.Key]; ok {
			if e.Value != w[0] || e.Source != w[1] {
				t.Errorf("%s = %v from %s, want %v from %s", e.Key, e.Value, e.Source, w[0], w[1])
			}
			delete(want, e.Key)
		}
	}
	if len(want) > 0 || show.File != file {
		t.Errorf("missing entries %v, file %q", want, show.File)
	}
	stdout, _, code = runPipelineCLI(t, context.Background(), nil, "config", "show")
	if code != 0 || !strings.Contains(stdout, "GRAPHCLOAK_NEO4J_PASSWORD") || strings.Contains(stdout, pw) {
		t.Errorf("table (exit %d):\n%s", code, stdout)
	}
}

func TestConfigErrors(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("privacy:\n  epsilom: 1\n"), 0o600)
	for _, tc := range []struct {
		args []string
		env  [2]string
		code int
	}{
		{[]string{"config", "show", "--config", bad}, [2]string{}, exitBadInput},
		{[]string{"config", "show", "--config", filepath.Join(dir, "missing.yaml")}, [2]string{}, exitBadInput},
		{[]string{"config", "show", "--tau", "-1"}, [2]string{}, exitBadInput},
		{[]string{"config", "show"}, [2]string{"GRAPHCLOAK_NEO4J_URI", "http://x"}, exitBadInput},
		{[]string{"config", "show", "-o", "yaml"}, [2]string{}, exitUsage},
		{[]string{"config"}, [2]string{}, exitUsage},
	} {
		if tc.env[0] != "" {
			t.Setenv(tc.env[0], tc.env[1])
		}
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, tc.args...); code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, stderr)
		}
		if tc.env[0] != "" {
			os.Unsetenv(tc.env[0])
		}
	}
}
