package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/stores"
)

// auditAnswers is plan's end-to-end check of the private answer on the
// graph: the certified recovery's model (every source fitted, the classes)
// once, then the mechanism calibrated and its loss over every edge per ε.
// A τ the graph cannot resolve is no error: the report says why answers
// would be refused. --answer-cache reuses (or stores) the model, as
// locate --private-answer and serve do.
func auditAnswers(ctx context.Context, g *globalOptions, o *planOptions, graph *laplacian.Graph, part []int, tau float64,
	rep *planReport) error {
	if part == nil {
		return nil
	}
	var cache *graphcloak.AnswerCache
	if o.answerCache != "" {
		key, err := stores.CertificateMACKey(&g.cfg.Config)
		if err != nil {
			return err
		}
		cache = &graphcloak.AnswerCache{Path: o.answerCache, MACKey: key, Software: buildinfo.Read().String()}
	}
	m, err := cache.Model(ctx, graph, tau, part, nil,
		recovery.CertifierOptions{Tol: o.fitTolerance, Progress: g.progress("answer audit")}, g.logger)
	var mre *recovery.ModelRangeError
	if errors.As(err, &mre) {
		rep.AnswerRefused = mre.Error()
		return nil
	}
	if err != nil {
		return err
	}
	for _, eps := range o.epsilons {
		cal, err := cache.Calibrate(ctx, m, eps, o.alpha, 0, g.logger)
		if err != nil {
			return err
		}
		a, err := m.Audit(ctx, cal)
		if err != nil {
			return err
		}
		rep.AnswerAudits = append(rep.AnswerAudits, planAudit{Epsilon: eps, AnswerAudit: a})
	}
	return nil
}

// planAudit is the answer's audit at one ε.
type planAudit struct {
	Epsilon float64 `json:"epsilon"`
	*graphcloak.AnswerAudit
}

// printAnswerAudits prints plan's answer audits (or why answers are refused).
func printAnswerAudits(out io.Writer, rep *planReport) {
	if rep.AnswerRefused != "" {
		fmt.Fprintf(out, "private answers would be refused at this τ: %s\n", rep.AnswerRefused)
	}
	for _, a := range rep.AnswerAudits {
		verdict := "passed"
		if !a.Passed {
			verdict = "FAILED: such answers are refused"
		}
		fmt.Fprintf(out, "answer audit ε = %g: %d sources fitted (%d refitted end to end), %d classes (%d nodes merged), worst loss %.6g ≤ %.6g over %d edges: %s; every source's noiseless readings answered with its community %.3f of the time\n",
			a.Epsilon, a.SourcesChecked, a.SourcesRefitted, a.Classes, a.NodesMerged, a.WorstLoss, a.Bound, a.EdgesChecked, verdict, a.Accuracy)
	}
}
