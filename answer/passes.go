package answer

import (
	"fmt"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// AuditPasses is the answer audit's CertifierOptions.Progress and Started
// on g, one progress per certifier pass: the first pass's ends at its
// total (a log prints nothing after), so a pass after it — the precise
// pass a loose one stopped for (a source too weak for it), a
// sensor-noise pass at the tolerance its bound needs — draws its own
// ("answer audit, pass 2") and is said before it starts, with its
// estimate (priced at long as PassEstimate does; issue 79: the first
// --sensor-noise answer ran a second pass and then said nothing for 5
// minutes). The first pass is told to started as before. progress,
// started and say may be nil.
func AuditPasses(progress func(step string) func(done, total int), started func(*laplacian.Graph, recovery.PassCost),
	say func(string), g *laplacian.Graph, long time.Duration) (report func(done, total int), start func(recovery.PassCost)) {
	var mu sync.Mutex
	pass := 0
	var current func(done, total int)
	if progress != nil {
		current = progress("answer audit")
		report = func(done, total int) {
			mu.Lock()
			p := current
			mu.Unlock()
			if p != nil {
				p(done, total)
			}
		}
	}
	start = func(c recovery.PassCost) {
		mu.Lock()
		pass++
		n := pass
		if n > 1 && progress != nil {
			current = progress(fmt.Sprintf("answer audit, pass %d", n))
		}
		mu.Unlock()
		switch {
		case n > 1 && say != nil:
			say(laterPassLine(n, c, PassEstimate(g, c, nil, long).String()))
		case started != nil:
			started(g, c)
		}
	}
	return report, start
}

// laterPassLine says pass n of the answer audit is about to run, why, and
// its estimate.
func laterPassLine(n int, c recovery.PassCost, estimate string) string {
	why := "at the fit tolerance the sensor noise needs"
	if c.Precise {
		why = "with the precise action (a source is too weak for the loose one)"
	}
	return fmt.Sprintf("answer audit: pass %d over every source, %s (T = %.3g): %s", n, why, c.Tol, estimate)
}
