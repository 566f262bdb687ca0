package uniquekeys

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// jsonKeys returns the top-level keys of one JSON object, repeats included.
func jsonKeys(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %q", line)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// A serve step's logger binds runId and epoch, and
// the release logs runId (the run it resumed) and epoch again: every JSON
// line must name each key once, with the record's own value.
func TestJSONLogsNeverRepeatAKey(t *testing.T) {
	var b bytes.Buffer
	l := NewLogger(&b, "json", "info").With("runId", "run-step", "epoch", "E1")
	l.Info("resuming", "runId", "run-earlier", "epoch", "E1", "attempt", 2)
	l.With("scope", "s").Info("written", "scope", "s2", "scope", "s3")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %q", len(lines), b.String())
	}
	for _, line := range lines {
		seen := map[string]bool{}
		for _, k := range jsonKeys(t, line) {
			if seen[k] {
				t.Errorf("key %q repeated in %s", k, line)
			}
			seen[k] = true
		}
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first["runId"] != "run-earlier" || first["epoch"] != "E1" || first["attempt"] != 2.0 {
		t.Errorf("first line %v: want the record's runId and every other attribute", first)
	}
	if second["scope"] != "s3" || second["runId"] != "run-step" {
		t.Errorf("second line %v: want the last scope and the bound runId", second)
	}
}

// NewLogger writes text unless told JSON, and from the level given: info
// when the level is not one.
func TestNewLoggerFormatAndLevel(t *testing.T) {
	for _, c := range []struct {
		format, level string
		debug, info   bool
	}{
		{"text", "debug", true, true},
		{"json", "info", false, true},
		{"text", "error", false, false},
		{"text", "loud", false, true},
	} {
		var b bytes.Buffer
		l := NewLogger(&b, c.format, c.level)
		l.Debug("d")
		l.Info("i")
		out := b.String()
		gotDebug := strings.Contains(out, "msg=d") || strings.Contains(out, `"msg":"d"`)
		gotInfo := strings.Contains(out, "msg=i") || strings.Contains(out, `"msg":"i"`)
		if gotDebug != c.debug || gotInfo != c.info || (out != "" && strings.HasPrefix(out, "{") != (c.format == "json")) {
			t.Errorf("%+v: debug %v info %v in %q", c, gotDebug, gotInfo, out)
		}
	}
}
