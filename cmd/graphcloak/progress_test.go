package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestProgressOnlyOnTerminal(t *testing.T) {
	var quiet, tty bytes.Buffer
	(&globalOptions{stderr: &quiet}).progress("recovery")(1, 2)
	g := &globalOptions{stderr: &tty, terminal: true}
	p := g.progress("recovery")
	p(1, 2)
	p(2, 2)
	p(2, 2) // after the end: nothing more
	if quiet.Len() != 0 {
		t.Errorf("progress written to a non-terminal: %q", quiet.String())
	}
	if got := tty.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "100% 2/2") || !strings.HasPrefix(got, "\r") {
		t.Errorf("terminal progress %q", got)
	}
	pull, end := g.pullProgress()
	tty.Reset()
	pull("nodes", 34)
	pull("relationships", 78)
	end()
	if got := tty.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, "pull nodes") {
		t.Errorf("pull progress %q", got)
	}
}

func TestJSONLogs(t *testing.T) {
	isolateConfig(t)
	const pw = "log-Secret-123"
	t.Setenv("GRAPHCLOAK_NEO4J_PASSWORD", pw)
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "demo", "--plot", "", "--log-format", "json", "--log-level", "info")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("no log lines")
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		if m["level"] == nil || m["msg"] == nil {
			t.Errorf("log line lacks level/msg: %q", l)
		}
	}
	if strings.Contains(stderr, pw) {
		t.Error("password in logs")
	}
}
