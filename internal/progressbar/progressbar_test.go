package progressbar

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, total int
		want        string
	}{
		{0, 10, "Δ2           [..............................]   0% 0/10"},
		{5, 10, "Δ2           [###############...............]  50% 5/10"},
		{10, 10, "Δ2           [##############################] 100% 10/10"},
		{12, 10, "Δ2           [##############################] 100% 10/10"},
		{7, 0, "Δ2           7"},
	}
	for _, tc := range tests {
		if got := Line("Δ2", tc.done, tc.total); got != tc.want {
			t.Errorf("Line(%d, %d) = %q, want %q", tc.done, tc.total, got, tc.want)
		}
	}
}

// The ETA extrapolates the rate so far, and says nothing before a few
// seconds or once done.
func TestETA(t *testing.T) {
	if got := eta(10*time.Second, 25, 100); !strings.Contains(got, "ETA 30s") {
		t.Errorf("a quarter done in 10 s: %q, want 30 s left", got)
	}
	for _, c := range [][3]int{{1, 0, 100}, {10, 100, 100}, {10, 0, 100}, {10, 5, 0}} {
		if got := eta(time.Duration(c[0])*time.Second, c[1], c[2]); got != "" {
			t.Errorf("eta(%ds, %d, %d) = %q, want none", c[0], c[1], c[2], got)
		}
	}
}

// A step on a pipe: nothing before Quiet, then a line with done/total and
// an ETA at least every Period of reports, the last line only when done
// reaches total, and nothing after it. The step's clock starts at its
// first report (an hour after the callback was made). The clock is a fake
// one.
func TestLogLines(t *testing.T) {
	var buf strings.Builder
	now := time.Unix(0, 0)
	p := Log(&buf, "answer audit", LogOptions{Period: 30 * time.Second, Quiet: 2 * time.Second, Now: func() time.Time { return now }})
	step := func(d time.Duration, done int) {
		now = now.Add(d)
		p(done, 100)
	}
	step(time.Hour, 0)   // the first report starts the step's clock
	step(time.Second, 1) // before Quiet: silent
	if buf.Len() != 0 {
		t.Fatalf("a line before the step ran 2 s: %q", buf.String())
	}
	step(time.Second, 10)    // 2 s: the first line
	step(10*time.Second, 20) // 10 s after it: silent
	step(20*time.Second, 50) // 30 s after it: a line
	step(time.Second, 99)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		"answer audit: 10/100 (10%), 2s elapsed, ETA 18s",
		"answer audit: 50/100 (50%), 32s elapsed, ETA 32s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", buf.String(), strings.Join(want, "\n"))
	}
	step(time.Second, 100)
	step(time.Minute, 100)
	if got := strings.TrimPrefix(buf.String(), strings.Join(want, "\n")+"\n"); got != "answer audit: done 100/100 in 34s\n" {
		t.Errorf("after the step: %q, want one done line", got)
	}
}

// A quick step prints nothing at all, its end included; a step without a
// total says how much it did.
func TestLogQuickAndUncounted(t *testing.T) {
	var buf strings.Builder
	p := Log(&buf, "Δ2", LogOptions{})
	p(5, 10)
	p(10, 10)
	if buf.Len() != 0 {
		t.Errorf("a quick step printed %q", buf.String())
	}
	if got := LogLine("pull nodes", 700, 0, 3*time.Second); got != "pull nodes: 700 done, 3s elapsed" {
		t.Errorf("LogLine without total = %q", got)
	}
	if got := LogLine("x", 0, 10, time.Second); got != "x: 0/10 (0%), 1s elapsed, ETA ?" {
		t.Errorf("LogLine before progress = %q", got)
	}
}

// Between reports a step's log goes on from a timer: its first line at
// the quiet time, then every period while the step has reported within
// HeartbeatPeriods periods; then it falls silent (a step an error ended),
// and nothing comes after its done line.
func TestLogHeartbeat(t *testing.T) {
	var mu sync.Mutex
	var buf strings.Builder
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	})
	lines := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Split(strings.TrimSpace(buf.String()), "\n")
	}
	const period = 20 * time.Millisecond
	p := Log(w, "recovery", LogOptions{Period: period, Quiet: period})
	p(0, 1) // a step that reports its start, then nothing
	time.Sleep(3 * HeartbeatPeriods * period)
	got := lines()
	if n := len(got); n < 2 || n > HeartbeatPeriods+1 || !strings.HasPrefix(got[0], "recovery: 0/1 (0%)") {
		t.Errorf("%d lines from the timer in %d periods after the last report, want 2 to %d (its quiet time, then one a period for %d periods): %q",
			n, 3*HeartbeatPeriods, HeartbeatPeriods+1, HeartbeatPeriods, got)
	}
	n := len(lines())
	p(1, 1)
	time.Sleep(3 * period)
	if got := lines(); len(got) != n+1 || !strings.HasPrefix(got[n], "recovery: done 1/1 in ") {
		t.Errorf("after its end: %q, want one done line last", got[n-1:])
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A step without a total (a pull's count of nodes) ends with a report of
// total −1: one done line if it had printed any, then nothing — not its
// count again every period; a step ended within its quiet time prints
// nothing at all.
func TestLogEndsWithoutTotal(t *testing.T) {
	var mu sync.Mutex
	var buf strings.Builder
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	})
	lines := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(buf.String()), " ", "_"))
	}
	const period = 20 * time.Millisecond
	p := Log(w, "pull nodes", LogOptions{Period: period, Quiet: period})
	p(115, 0)
	time.Sleep(3 * period)
	p(115, -1)
	n := len(lines())
	time.Sleep(5 * period)
	got := lines()
	if n < 2 || len(got) != n || !strings.HasPrefix(got[n-1], "pull_nodes:_done_115_in_") {
		t.Errorf("a step ended after %d lines: %q; want its done line last and nothing after", n, got)
	}

	buf.Reset()
	quick := Log(w, "pull nodes", LogOptions{Period: period, Quiet: period})
	quick(115, 0)
	quick(115, -1)
	time.Sleep(5 * period)
	if got := lines(); len(got) != 0 {
		t.Errorf("a step ended within its quiet time printed %q", got)
	}
}
