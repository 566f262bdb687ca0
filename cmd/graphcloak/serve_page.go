package main

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// operatorPage is serve's "/": what an operator checks at a glance — the
// scope, the budget left, the last runs and the latest ranking with its
// picture. It is rendered on the server (HTML and inline SVG, no
// JavaScript). Budget and runs are read from the ledger and Neo4j at each
// request; the ranking and picture are those of the last slot this server
// located (the picture file is drawn by Draw as the slot locates).
type operatorPage struct {
	opts *serveOptions
	dir  string // the rankings' pictures, a directory of serve's own

	mu     sync.Mutex
	latest *pageRanking
	answer *pageAnswer
}

// pageAnswer is the outcome of the last slot's private answer.
type pageAnswer struct {
	Epoch, RunID string
	At           time.Time
	// Community and Mechanism of a published answer; Mismatch when it was
	// randomized response for readings outside the model; Refused the
	// reason an answer was not published.
	Community, Mechanism, Mismatch, Refused string
	Audit                                   *graphcloak.AnswerAudit
}

// pageRanking is the ranking of the last slot located.
type pageRanking struct {
	Epoch, RunID, ReleaseRun string
	At                       time.Time
	Estimator                string
	Report                   *community.Report
	NoiseDominated           bool
	NoiseReason              string
	picture                  string // its SVG file
}

// newOperatorPage makes the page and the private directory of its picture;
// close removes that directory.
func newOperatorPage(opts *serveOptions) (page *operatorPage, close func(), err error) {
	dir, err := os.MkdirTemp("", "graphcloak-serve-")
	if err != nil {
		return nil, nil, err
	}
	return &operatorPage{opts: opts, dir: dir}, func() { os.RemoveAll(dir) }, nil
}

// picturePath is where the locate run runID draws its picture: one file
// per run, so the page never shows one run's picture beside another's
// ranking.
func (p *operatorPage) picturePath(runID string) string {
	return filepath.Join(p.dir, runID+".svg")
}

// Draw draws a slot's localisation for the page before it is published
// (service.Observer), at picturePath of its run.
func (p *operatorPage) Draw(ctx context.Context, lj graphcloak.LocateJob, res *graphcloak.LocateResult, sum *job.LocateSummary) error {
	path := p.picturePath(sum.RunID)
	if err := plotLocate(path, stores.Neo4jSpec, "posterior", lj, res); err != nil {
		return err
	}
	sum.Plot = path
	return ctx.Err()
}

// Located records a slot's localisation for the page, and drops the
// previous one's picture (service.Observer).
func (p *operatorPage) Located(epoch, releaseRun string, s *job.LocateSummary) {
	if s == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.latest != nil && p.latest.picture != s.Plot {
		os.Remove(p.latest.picture)
	}
	p.latest = &pageRanking{Epoch: epoch, RunID: s.RunID, ReleaseRun: releaseRun, At: time.Now().UTC(), Estimator: s.Estimator,
		Report: s.Report, NoiseDominated: s.NoiseDominated, NoiseReason: s.NoiseReason, picture: s.Plot}
}

// Answered records a slot's private answer, or why there was none
// (service.Observer).
func (p *operatorPage) Answered(epoch, runID string, s *job.AnswerSummary, err error) {
	a := &pageAnswer{Epoch: epoch, RunID: runID, At: time.Now().UTC()}
	switch {
	case err != nil:
		a.Refused = err.Error()
	case s != nil && s.Answer != nil:
		a.Community, a.Mechanism, a.Mismatch, a.Audit = s.Answer.Community, s.Answer.Calibration.Mechanism, s.Answer.Mismatch, s.Answer.Audit
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answer = a
}

// pageData is what the template shows.
type pageData struct {
	Scope, Ledger, Schedule, Graph string
	PrivateAnswer                  bool
	Now                            time.Time
	Balance                        *privacy.Balance
	BudgetError                    string
	Runs                           []runRow
	RunsError                      string
	Ranking                        *pageRanking
	Answer                         *pageAnswer
	Top                            []community.Ranked
	More                           int
	Picture                        template.HTML
}

func (p *operatorPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	d := p.data(ctx)
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, d); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b.Bytes())
}

// data gathers the page: errors reading the ledger or the runs are shown
// in their place, never a blank page.
func (p *operatorPage) data(ctx context.Context) pageData {
	cfg := p.opts.g.cfg.Config // a copy: nothing here changes the server's
	d := pageData{Scope: cfg.Privacy.Scope, Ledger: cfg.Privacy.Ledger, Schedule: p.opts.schedule, Graph: projectionName(&cfg),
		PrivateAnswer: p.opts.privateAnswer, Now: time.Now().UTC()}
	client, err := stores.Connect(ctx, &cfg)
	if err != nil {
		d.BudgetError, d.RunsError = err.Error(), err.Error()
	} else {
		defer client.Close(context.WithoutCancel(ctx))
		if l, err := stores.OpenLedger(ctx, &cfg, client); err != nil {
			d.BudgetError = withInitHint(&cfg, err).Error()
		} else if bal, err := l.Balance(ctx, cfg.Privacy.Scope); err != nil {
			d.BudgetError = err.Error()
		} else if len(bal) > 0 {
			d.Balance = &bal[0]
		}
		if recs, err := client.ListRuns(ctx, cfg.Neo4j.Database, cfg.Privacy.Scope, 10); err != nil {
			d.RunsError = err.Error()
		} else {
			for _, rec := range recs {
				d.Runs = append(d.Runs, runRowOf(rec, d.Now))
			}
		}
	}
	p.mu.Lock()
	d.Ranking, d.Answer = p.latest, p.answer
	p.mu.Unlock()
	if d.Ranking != nil && d.Ranking.Report != nil {
		d.Top = d.Ranking.Report.Communities
		if len(d.Top) > 10 {
			d.Top, d.More = d.Top[:10], len(d.Top)-10
		}
		if svg, err := os.ReadFile(d.Ranking.picture); d.Ranking.picture != "" && err == nil {
			d.Picture = template.HTML(svg) // written by our own plotting, every text escaped
		}
	}
	return d
}

// projectionName describes the configured projection in one line.
func projectionName(cfg *config.Config) string {
	alt := func(names []string) string {
		if len(names) == 0 {
			return "*"
		}
		return strings.Join(names, "|")
	}
	s := "(:" + alt(cfg.Projection.NodeLabels) + ")-[:" + alt(cfg.Projection.RelationshipTypes) + "]-"
	if cfg.Projection.NodeKeyProperty != "" {
		s += ", key " + cfg.Projection.NodeKeyProperty
	}
	return s
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct": func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" },
	// verdict is a localisation's verdict as its run recorded it: "noise",
	// "answer", or "" (a release, or a run before verdicts were recorded).
	"verdict": func(r runRow) string {
		switch {
		case r.NoiseDominated == nil:
			return ""
		case *r.NoiseDominated:
			return "noise"
		}
		return "answer"
	},
	"num":  func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) },
	"time": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
	"ms":   func(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() },
}).Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="60">
<title>graphcloak serve · scope {{.Scope}}</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 75em; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
h2 { font-size: 1.1em; margin-top: 1.5em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { text-align: left; padding: 0.2em 0.8em 0.2em 0; }
th { border-bottom: 1px solid #999; }
.error { color: #b2182b; }
.verdict { color: #b2182b; font-weight: bold; }
.muted { color: #777; }
#picture svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
</style>
</head>
<body>
<h1>graphcloak serve — scope <span id="scope">{{.Scope}}</span></h1>
<p class="muted">ledger {{.Ledger}} · schedule {{.Schedule}} · projection {{.Graph}} · page made {{time .Now}} UTC (refreshes every minute) · <a href="/metrics">/metrics</a> · <a href="/healthz">/healthz</a></p>

<h2>Budget</h2>
{{if .BudgetError}}<p class="error" id="budget-error">budget unknown: {{.BudgetError}}</p>
{{else if .Balance}}<table id="budget">
<tr><th>budget (ε, δ)</th><td>ε = {{num .Balance.Budget.Epsilon}}, δ = {{num .Balance.Budget.Delta}}{{if .Balance.Budget.AnswerEpsilon}}, answers' share ε_A = {{num .Balance.Budget.AnswerEpsilon}}{{end}}</td></tr>
<tr><th>releases charged</th><td>{{.Balance.Releases}}</td></tr>
<tr><th>ε spent (at δ)</th><td>{{num .Balance.EpsilonSpent}}</td></tr>
{{if .Balance.PureEpsilonSpent}}<tr><th>of which private answers (ε)</th><td>{{num .Balance.PureEpsilonSpent}}</td></tr>
{{end}}<tr><th>ρ spent / ρ budget (zCDP{{if .Balance.Budget.AnswerEpsilon}}, Gaussian releases{{end}})</th><td>{{num .Balance.RhoSpent}} / {{num .Balance.RhoBudget}}</td></tr>
<tr><th>ρ left for a Gaussian release</th><td id="rho-left">{{num .Balance.RhoRemaining}}</td></tr>
<tr><th>ε left for a private answer</th><td id="answer-left">{{num .Balance.AnswerEpsilonRemaining}}</td></tr>
</table>
{{else}}<p id="budget">no release charged to this scope yet</p>{{end}}

<h2>Latest ranking</h2>
{{if .PrivateAnswer}}<p>private-answer mode: each slot publishes only the source community; there is no ranking to show.</p>
{{with .Answer}}<div id="answer"><p>slot {{.Epoch}} · {{time .At}} UTC · run {{.RunID}}</p>
{{if .Refused}}<p class="verdict" id="answer-refused">not answered: {{.Refused}}</p>
{{else}}<p>published community <b>{{.Community}}</b> ({{.Mechanism}})</p>
{{if .Mismatch}}<p class="verdict" id="answer-mismatch">answered by randomized response: {{.Mismatch}}</p>{{end}}
{{with .Audit}}<p class="muted" id="answer-audit">audit: {{.SourcesChecked}} sources fitted, {{.Classes}} classes ({{.NodesMerged}} nodes merged), worst loss {{num .WorstLoss}} ≤ {{num .Bound}} over {{.EdgesChecked}} edges</p>{{end}}
{{end}}</div>{{else}}<p id="no-answer">no slot answered since this server started</p>{{end}}
{{else if .Ranking}}<p>slot {{.Ranking.Epoch}} · located {{time .Ranking.At}} UTC · {{.Ranking.Estimator}} estimator · run {{.Ranking.RunID}} on release {{.Ranking.ReleaseRun}}</p>
{{if .Ranking.NoiseDominated}}<p class="verdict" id="verdict">{{.Ranking.NoiseReason}}</p>{{end}}
{{if .Ranking.Report.NoSource}}<p id="no-source">no detectable source</p>{{end}}
<table id="ranking">
<tr><th>rank</th><th>community</th><th>probability</th><th>size</th></tr>
{{range .Top}}<tr><td>{{.Rank}}</td><td>{{.Name}}</td><td>{{pct .Share}}</td><td>{{.Size}}</td></tr>
{{end}}{{if .More}}<tr><td>…</td><td colspan="3">{{.More}} more</td></tr>{{end}}
</table>
{{if .Picture}}<div id="picture">{{.Picture}}</div>{{else}}<p class="muted">no picture</p>{{end}}
{{else}}<p id="no-ranking">no slot located since this server started</p>{{end}}

<h2>Last runs</h2>
{{if .RunsError}}<p class="error">runs unknown: {{.RunsError}}</p>
{{else if .Runs}}<table id="runs">
<tr><th>started (UTC)</th><th>command</th><th>status</th><th>epoch</th><th>σ</th><th>ρ left</th><th>top community</th><th>P</th><th>verdict</th><th>duration</th><th>run</th></tr>
{{range .Runs}}<tr><td>{{time .StartedAt}}</td><td>{{.Command}}</td><td>{{.Status}}</td><td>{{.Epoch}}</td><td>{{if .Sigma}}{{num .Sigma}}{{end}}</td><td>{{with .RhoRemaining}}{{num .}}{{end}}</td><td>{{.TopCommunity}}</td><td>{{if .TopCommunity}}{{pct .TopProbability}}{{end}}</td><td>{{with verdict .}}{{if eq . "noise"}}<span class="verdict">noise</span>{{else}}{{.}}{{end}}{{end}}</td><td>{{if .DurationMillis}}{{ms .DurationMillis}}{{end}}</td><td>{{.RunID}}</td></tr>
{{end}}</table>
{{else}}<p>no runs recorded for this scope yet</p>{{end}}
</body>
</html>
`
