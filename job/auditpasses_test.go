package job

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestSecondAuditPassSaysSo (issue 79: the first --sensor-noise answer
// ran a second audit pass and then said nothing for 5 minutes): with a
// sensor-noise bound the answer audit runs a pass at the default
// tolerance, then one at the tolerance the bound needs. The events, in
// order: every pass is announced (the first through PassStarted, a later
// one by a line naming its pass and its estimate) before its first
// progress report, and no progress callback gets a report after it
// reached its total — each pass reports to its own.
func TestSecondAuditPassSaysSo(t *testing.T) {
	spec := karateForecast(1, []string{forecast.ModeAnswer}, nil)
	spec.SensorNoise = 0.02
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	spec.Progress = func(step string) func(done, total int) {
		if !strings.HasPrefix(step, "answer audit") {
			return nil
		}
		ended := false
		return func(done, total int) {
			if ended {
				record("late report to " + step)
			}
			ended = ended || total > 0 && done >= total
			record("report " + step)
		}
	}
	spec.PassStarted = func(_ *laplacian.Graph, c recovery.PassCost) { record(fmt.Sprintf("started T=%g", c.Tol)) }
	spec.Say = func(line string) {
		if strings.HasPrefix(line, "answer audit: pass") {
			record("said " + line)
		}
	}
	if _, err := Forecast(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	passes, reporting := 0, ""
	for _, e := range events {
		switch {
		case strings.HasPrefix(e, "late"):
			t.Errorf("%s after its pass reached its total", e)
		case strings.HasPrefix(e, "started"):
			passes, reporting = passes+1, ""
		case strings.HasPrefix(e, "said"):
			passes, reporting = passes+1, ""
			if !strings.Contains(e, fmt.Sprintf("pass %d", passes)) || !strings.Contains(e, "estimated ") {
				t.Errorf("pass %d announced as %q: want its number and its estimate", passes, e)
			}
		case strings.HasPrefix(e, "report"):
			if passes == 0 {
				t.Errorf("%s before any pass was announced", e)
			}
			if reporting != "" && reporting != e {
				t.Errorf("pass %d reports to %q and %q", passes, reporting, e)
			}
			reporting = e
		}
	}
	if passes < 2 {
		t.Fatalf("%d passes (events %q): the sensor-noise audit should run two", passes, events)
	}
}
