package answer

import (
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// WeakestSignal returns the weakest source signal of the certificate at
// the default fit tolerance that c holds for g at τ (in memory or in its
// file, verified as Model verifies it: recovery.WeakestSignalOf), or 0
// when it holds none. A sensor-noise audit given it
// (recovery.CertifierOptions.WeakestSignal) does not run its pass of the
// norms again: after an audit of the same graph, the first --sensor-noise
// answer ran that pass for minutes (LFR 2·10⁴: 3 min 12 s) to compute
// the numbers the stored certificate holds.
func (c *Cache) WeakestSignal(g *laplacian.Graph, tau float64) float64 {
	if c == nil {
		return 0
	}
	st, tol, ok := c.Memo.get(g, tau, fitKey{tol: recovery.DefaultFitTolerance}, c.Software)
	if !ok && c.Path != "" {
		var err error
		st, tol, err = c.Load(g, tau, recovery.CertifierOptions{})
		ok = err == nil
	}
	if !ok {
		return 0
	}
	lo, err := recovery.WeakestSignalOf(g, tau, tol, st)
	if err != nil {
		return 0
	}
	return lo
}
