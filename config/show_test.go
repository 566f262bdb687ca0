package config

import (
	"bytes"
	"strings"
	"testing"
)

// WriteText: the file first (the default location when none was read),
// then one row per entry in order, lists joined by commas, flags spelt
// as typed and none for a key without a flag.
func TestShownText(t *testing.T) {
	s := Shown{File: "/etc/graphcloak.yaml", Entries: []Entry{
		{Key: "projection.nodeLabels", Flag: "node-labels", Env: "GRAPHCLOAK_PROJECTION_NODE_LABELS", Value: []string{"Room", "Hall"}, Source: FromFlag},
		{Key: "privacy.epsilon", Env: "GRAPHCLOAK_PRIVACY_EPSILON", Value: 2.5, Source: FromEnv},
	}}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 5 || lines[0] != "config file: /etc/graphcloak.yaml" || lines[1] != "" {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, want := range [][]string{
		{"KEY", "VALUE", "SOURCE", "ENV", "FLAG"},
		{"projection.nodeLabels", "Room,Hall", "flag", "GRAPHCLOAK_PROJECTION_NODE_LABELS", "--node-labels"},
		{"privacy.epsilon", "2.5", "env", "GRAPHCLOAK_PRIVACY_EPSILON"},
	} {
		if got := strings.Fields(lines[2+i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("row %d: %q, want %q", i, got, want)
		}
	}
	b.Reset()
	if err := (Shown{}).WriteText(&b); err != nil || !strings.HasPrefix(b.String(), "config file: (none; default location "+DefaultFile()+")\n") {
		t.Errorf("without a file: %q, %v", b.String(), err)
	}
}
