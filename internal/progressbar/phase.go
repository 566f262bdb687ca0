package progressbar

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Phase reports a step that has no count to show (community detection,
// loading a file) through say: when it is still running after quiet a
// line "label …" is said, then "label: 1m0s elapsed" every period while it
// runs, and, when the returned end is called, "label: done in 12s". A
// quick step says nothing. end may be called more than once; nothing is
// said after the first call. quiet and period ≤ 0 are DefaultLogQuiet and
// DefaultLogPeriod.
func Phase(say func(line string), label string, quiet, period time.Duration) (end func()) {
	if quiet <= 0 {
		quiet = DefaultLogQuiet
	}
	if period <= 0 {
		period = DefaultLogPeriod
	}
	start := time.Now()
	var mu sync.Mutex
	said, ended := false, false
	var t *time.Timer
	var beat func()
	beat = func() {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		if said {
			say(fmt.Sprintf("%s: %s elapsed", label, time.Since(start).Round(time.Second)))
		} else {
			said = true
			say(label + " …")
		}
		t = time.AfterFunc(period, beat)
	}
	mu.Lock()
	t = time.AfterFunc(quiet, beat)
	mu.Unlock()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		t.Stop()
		if said && !ended {
			say(fmt.Sprintf("%s: done in %s", label, time.Since(start).Round(time.Second)))
		}
		ended = true
	}
}

// JSONLines writes each line written to it to W as one JSON log record
// {"time", "level": "INFO", "msg": "progress", "progress": line}: progress
// lines among a JSON log's records. It is safe for concurrent use.
type JSONLines struct {
	W  io.Writer
	mu sync.Mutex
}

func (j *JSONLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		b, err := json.Marshal(struct {
			Time     string `json:"time"`
			Level    string `json:"level"`
			Msg      string `json:"msg"`
			Progress string `json:"progress"`
		}{time.Now().Format(time.RFC3339Nano), "INFO", "progress", line})
		if err != nil {
			return 0, err
		}
		if _, err := j.W.Write(append(b, '\n')); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
