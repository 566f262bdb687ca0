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

// One configuration path: sensitivity took τ only from its own
// flag ("--graph needs --tau" with privacy.tau set in the file or the
// environment); calibrate validated GRAPHCLOAK_PRIVACY_EPSILON but never
// used it; config show listed --community-property, which nothing reads.
func TestOneConfigurationPath(t *testing.T) {
	isolateConfig(t)
	tauOf := func(args ...string) float64 {
		t.Helper()
		out, code, err := runPrivacyCLI(t, append([]string{"sensitivity", "--graph", "karate", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %v", args, code, err)
		}
		var r struct{ Tau float64 }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Tau
	}
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("privacy:\n  tau: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := tauOf("--config", file); got != 2 {
		t.Errorf("τ from the config file: %g, want 2", got)
	}
	t.Setenv("GRAPHCLOAK_PRIVACY_TAU", "3")
	if got := tauOf("--config", file); got != 3 {
		t.Errorf("τ from the environment over the file: %g, want 3", got)
	}
	if got := tauOf("--config", file, "--tau", "0.5"); got != 0.5 {
		t.Errorf("τ from the flag over everything: %g, want 0.5", got)
	}
	os.Unsetenv("GRAPHCLOAK_PRIVACY_TAU")

	sigma := func() float64 {
		t.Helper()
		out, code, err := runPrivacyCLI(t, "calibrate", "--sensitivity", "1", "--delta", "1e-5", "-o", "json")
		if code != 0 {
			t.Fatalf("calibrate: exit %d: %v", code, err)
		}
		var r struct{ Sigma float64 }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Sigma
	}
	t.Setenv("GRAPHCLOAK_PRIVACY_EPSILON", "1")
	s1 := sigma()
	t.Setenv("GRAPHCLOAK_PRIVACY_EPSILON", "4")
	if s4 := sigma(); !(s4 < s1) {
		t.Errorf("GRAPHCLOAK_PRIVACY_EPSILON ignored: σ(ε=4) = %g, σ(ε=1) = %g", s4, s1)
	}
	os.Unsetenv("GRAPHCLOAK_PRIVACY_EPSILON")

	out, _, _ := runPrivacyCLI(t, "config", "show")
	if strings.Contains(out, "community-property") || strings.Contains(out, "communityProperty") {
		t.Errorf("config show lists community-property, which no command reads:\n%s", out)
	}
}

// Secrets: a group/world-readable config file holding the Neo4j
// password was accepted silently (a 0644 key file is refused); a password
// in the URI query string was echoed in an error; --config KEYFILE echoed
// digits of the key.
func TestSecretsInConfig(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("neo4j:\n  password: \"hunter2-secret\"\n"), 0o644)
	os.Chmod(cfg, 0o644)
	_, code, err := runPrivacyCLI(t, "config", "show", "--config", cfg)
	if code != exitBadInput || !strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("0644 config with a password: exit %d, %v; want exit 3 asking for chmod 600", code, err)
	}
	os.Chmod(cfg, 0o600)
	if _, code, err := runPrivacyCLI(t, "config", "show", "--config", cfg); code != 0 {
		t.Errorf("0600 config: exit %d, %v", code, err)
	}

	var out, errb strings.Builder
	code = runArgs(context.Background(), []string{"sensitivity", "--graph", "neo4j", "--uri", "neo4j://localhost:1?password=hunter2-secret"}, &out, &errb)
	if code == 0 || strings.Contains(errb.String(), "hunter2") {
		t.Errorf("URI query password: exit %d, stderr %q", code, errb.String())
	}

	key := filepath.Join(dir, "noise.key")
	if _, code, err := runPrivacyCLI(t, "keygen", "--out", key); code != 0 {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(key)
	errb.Reset()
	code = runArgs(context.Background(), []string{"config", "show", "--config", key}, &out, &errb)
	for i := 0; i+6 <= 64; i++ {
		if strings.Contains(errb.String(), string(raw[i:i+6])) {
			t.Fatalf("--config KEYFILE echoes key digits: %q", errb.String())
		}
	}
	if code != exitBadInput && code != exitUsage {
		t.Errorf("--config KEYFILE: exit %d", code)
	}
}
