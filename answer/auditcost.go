package answer

import (
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// AuditSeconds models Audit — one calibration checked over every edge —
// on g with the partition part: seconds on the 2-core reference machine
// (2 cores, shared). Its work: the community spreads that give every
// node's probabilities and the answers' posteriors (the envelope's: two
// spreads of every community over its component, privacy.SpreadEntries),
// every node's log-probability of every answer (n·k), and every edge's
// comparison of its ends' k answers (|E|·k). Each is priced at its rate
// measured on the plan's graphs (auditNanosPer…).
func AuditSeconds(g *laplacian.Graph, part []int) float64 {
	k := float64(len(community.Sizes(part)))
	n, e := float64(g.N()), float64(g.NumEdges())
	return (2*privacy.SpreadEntries(g, part)*auditNanosPerEntry + n*k*auditNanosPerCell + e*k*auditNanosPerPair) * 1e-9
}

// The audit's rates, measured on LFR 2·10⁴ (66 communities) and e-mail
// Enron (36 692 nodes, 1 118 communities) with 2 cores, CPU time over
// the cores (the step's work is spread over both).
const (
	auditNanosPerEntry = 10
	auditNanosPerCell  = 20
	auditNanosPerPair  = 2
)
