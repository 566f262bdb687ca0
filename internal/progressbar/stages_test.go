package progressbar

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a strings.Builder safe for the progress timers' writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// On a pipe a pull's stage (LogStages) ends when the next begins and every stage at
// the pull's end: each says done once, and nothing is said of the pull
// afterwards (before: "pull nodes: 115 done, 30s elapsed" every period of
// a daemon's life after a 0.5 s pull).
func TestLogStagesEnd(t *testing.T) {
	const period = 20 * time.Millisecond
	var buf lockedBuffer
	progress, end := LogStages(func(stage string) func(done, total int) {
		return Log(&buf, "pull "+stage, LogOptions{Period: period, Quiet: -1})
	})
	progress("nodes", 115)
	time.Sleep(3 * period)
	progress("relationships", 78)
	time.Sleep(3 * period)
	end()
	n := len(strings.Split(buf.String(), "\n"))
	time.Sleep(5 * period)
	out := buf.String()
	if got := len(strings.Split(out, "\n")); got != n {
		t.Errorf("lines after the pull ended: %q", strings.Split(out, "\n")[n-1:])
	}
	for _, want := range []string{"pull nodes: done 115 in", "pull relationships: done 78 in"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("%q said %d times, want once:\n%s", want, strings.Count(out, want), out)
		}
	}
	if i, j := strings.Index(out, "pull nodes: done"), strings.Index(out, "pull relationships:"); i < 0 || i > j {
		t.Errorf("the nodes stage did not end when the relationships began:\n%s", out)
	}
}

// ByStage makes one callback a stage, at its first report, and hands each
// report to its stage's.
func TestByStage(t *testing.T) {
	made := map[string]int{}
	got := map[string][]int{}
	progress := ByStage(func(stage string) func(done, total int) {
		made[stage]++
		return func(done, total int) { got[stage] = append(got[stage], done, total) }
	})
	progress("nodes", 1, 3)
	progress("relationships", 5, 9)
	progress("nodes", 3, 3)
	if made["nodes"] != 1 || made["relationships"] != 1 || len(made) != 2 {
		t.Errorf("callbacks made %v, want one a stage", made)
	}
	if n, r := got["nodes"], got["relationships"]; len(n) != 4 || n[2] != 3 || len(r) != 2 || r[0] != 5 || r[1] != 9 {
		t.Errorf("reports %v", got)
	}
}

// A period given as text sets both the period and no quiet start; text
// that is not a positive duration leaves the defaults.
func TestPeriodOptions(t *testing.T) {
	if got := PeriodOptions("50ms"); got.Period != 50*time.Millisecond || got.Quiet >= 0 {
		t.Errorf("50ms: %+v", got)
	}
	for _, s := range []string{"", "0s", "-1s", "soon", "25"} {
		if got := PeriodOptions(s); got.Period != 0 || got.Quiet != 0 {
			t.Errorf("%q: %+v, want the defaults", s, got)
		}
	}
}
