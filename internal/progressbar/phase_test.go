package progressbar

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// A phase says its start after quiet, a line every period while it runs
// and its end once; a phase ended before quiet says nothing.
func TestPhase(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	say := func(l string) { mu.Lock(); lines = append(lines, l); mu.Unlock() }
	end := Phase(say, "communities (leiden) on 9 nodes", time.Millisecond, time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	end()
	end()
	mu.Lock()
	got := append([]string(nil), lines...)
	mu.Unlock()
	if n := len(got); n < 3 || got[0] != "communities (leiden) on 9 nodes …" || got[n-1] != "communities (leiden) on 9 nodes: done in 0s" {
		t.Fatalf("a phase's lines: %q", got)
	}
	for _, l := range got[1 : len(got)-1] {
		if !regexp.MustCompile(`^communities \(leiden\) on 9 nodes: \d+s elapsed$`).MatchString(l) {
			t.Errorf("a phase's line while it runs: %q", l)
		}
	}

	lines = nil
	Phase(say, "quick", time.Hour, time.Hour)()
	time.Sleep(5 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 0 {
		t.Errorf("a quick phase said %q", lines)
	}
}

// Every line written to JSONLines is one JSON record holding it.
func TestJSONLines(t *testing.T) {
	var buf bytes.Buffer
	j := &JSONLines{W: &buf}
	in := "Δ2: 5/10 (50%)\nΔ2: done 10/10 in 1s\n"
	if n, err := j.Write([]byte(in)); err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	want := strings.Split(strings.TrimSpace(in), "\n")
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d records for %d lines: %q", len(got), len(want), buf.String())
	}
	for i, l := range got {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["msg"] != "progress" || m["level"] != "INFO" || m["progress"] != want[i] {
			t.Errorf("record %d: %q (%v)", i, l, err)
		}
		if _, err := time.Parse(time.RFC3339Nano, m["time"]); err != nil {
			t.Errorf("record %d's time: %v", i, err)
		}
	}
}
