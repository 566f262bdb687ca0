package job

import (
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// auditPasses is answer.AuditPasses priced at LongStep: a pass after the
// first is said before it starts, with its estimate, and reports to its
// own progress.
func auditPasses(progress func(step string) func(done, total int), started func(*laplacian.Graph, recovery.PassCost),
	say func(string), g *laplacian.Graph) (report func(done, total int), start func(recovery.PassCost)) {
	return answer.AuditPasses(progress, started, say, g, LongStep)
}
