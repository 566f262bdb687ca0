package service

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/internal/sourceview"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// Page is the operator's page, the service's "/": what an operator checks
// at a glance — the scope, the budget left, the last runs and the latest
// ranking with its picture. It is rendered on the server (HTML and inline
// SVG, no JavaScript). Budget and runs are read (PageOptions.Status) at
// each request; the ranking and picture are those of the last slot this
// service located (the picture file is drawn by Draw as the slot
// locates). A Page is the slots' Observer.
type Page struct {
	opt PageOptions
	dir string // the rankings' pictures, a directory of the page's own

	mu     sync.Mutex
	latest *pageRanking
	answer *pageAnswer
}

// PageOptions say what the page shows besides the slots' outcomes.
type PageOptions struct {
	// Scope, Ledger, Schedule and Graph (the projection in one line) head
	// the page.
	Scope, Ledger, Schedule, Graph string
	// PrivateAnswer: each slot publishes only the source community, so
	// the page shows the last answer instead of a ranking.
	PrivateAnswer bool
	// Status reads the scope's budget and its last runs at now, at each
	// request (nil: neither is shown).
	Status func(ctx context.Context, now time.Time) PageStatus
	// Steps are the long steps of the slots (the answer audit, Δ2, …)
	// with their progress, read at each request (nil: not shown).
	Steps *progressbar.Running
}

// PageStatus is what the page reads afresh at each request: the scope's
// budget and its last runs, or why each could not be read (shown in
// their place, never a blank page).
type PageStatus struct {
	// Balance is the scope's balance (nil: no release charged yet).
	Balance     *privacy.Balance
	BudgetError string
	// Runs are the last runs, newest first.
	Runs      []job.RunRow
	RunsError string
}

// pageAnswer is the outcome of the last slot's private answer.
type pageAnswer struct {
	Epoch, RunID string
	At           time.Time
	// Community and Mechanism of a published answer; Mismatch when it was
	// randomized response for readings outside the model; Refused the
	// reason an answer was not published.
	Community, Mechanism, Mismatch, Refused string
	Audit                                   *answer.Audit
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

// NewPage makes the page and the private directory of its pictures,
// which Close removes.
func NewPage(opt PageOptions) (*Page, error) {
	dir, err := os.MkdirTemp("", "graphcloak-serve-")
	if err != nil {
		return nil, err
	}
	return &Page{opt: opt, dir: dir}, nil
}

// Close removes the page's pictures.
func (p *Page) Close() error { return os.RemoveAll(p.dir) }

// PicturePath is where the locate run runID draws its picture: one file
// per run, so the page never shows one run's picture beside another's
// ranking.
func (p *Page) PicturePath(runID string) string {
	return filepath.Join(p.dir, runID+".svg")
}

// Draw draws a slot's localisation for the page before it is published
// (Observer), at PicturePath of its run.
func (p *Page) Draw(ctx context.Context, lr graphcloak.LocateRequest, res *graphcloak.LocateResult, sum *job.LocateSummary) error {
	path := p.PicturePath(sum.RunID)
	if err := sourceview.Locate(path, stores.Neo4jSpec, "posterior", lr, res); err != nil {
		return err
	}
	sum.Plot = path
	return ctx.Err()
}

// Located records a slot's localisation for the page, and drops the
// previous one's picture (Observer).
func (p *Page) Located(epoch, releaseRun string, s *job.LocateSummary) {
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
// (Observer).
func (p *Page) Answered(epoch, runID string, s *job.AnswerSummary, err error) {
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
	PageStatus
	Ranking *pageRanking
	Answer  *pageAnswer
	Top     []community.Ranked
	More    int
	Picture template.HTML
	Steps   []progressbar.StepState
}

func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

// data gathers the page: the status read now, the last ranking (its ten
// first communities) with its picture, the last answer.
func (p *Page) data(ctx context.Context) pageData {
	d := pageData{Scope: p.opt.Scope, Ledger: p.opt.Ledger, Schedule: p.opt.Schedule, Graph: p.opt.Graph,
		PrivateAnswer: p.opt.PrivateAnswer, Now: time.Now().UTC()}
	if p.opt.Status != nil {
		d.PageStatus = p.opt.Status(ctx, d.Now)
	}
	if p.opt.Steps != nil {
		d.Steps = p.opt.Steps.Steps()
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

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct": func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" },
	// verdict is a localisation's verdict as its run recorded it: "noise",
	// "answer", or "" (a release, or a run before verdicts were recorded).
	"verdict": func(r job.RunRow) string {
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
	"dur":  func(d time.Duration) string { return d.Round(time.Second).String() },
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

{{if .Steps}}<h2>Steps</h2>
<table id="steps">
<tr><th>step</th><th>done</th><th>of</th><th>elapsed</th><th>ETA</th></tr>
{{range .Steps}}<tr><td>{{.Step}}</td><td>{{.Done}}</td><td>{{if gt .Total 0}}{{.Total}}{{else}}?{{end}}</td><td>{{dur .Elapsed}}</td><td>{{if .Finished}}done{{else if gt .Done 0}}{{dur .ETA}}{{else}}?{{end}}</td></tr>
{{end}}</table>{{end}}

<h2>Budget</h2>
{{if .BudgetError}}<p class="error" id="budget-error">budget unknown: {{.BudgetError}}</p>
{{else if .Balance}}<table id="budget">
<tr><th>budget (ε, δ)</th><td>ε = {{num .Balance.Budget.Epsilon}}, δ = {{num .Balance.Budget.Delta}}{{if .Balance.Budget.AnswerEpsilon}}, answers' share ε_A = {{num .Balance.Budget.AnswerEpsilon}}{{end}}{{if .Balance.Budget.AnswerDelta}}, answers' δ share δ_A = {{num .Balance.Budget.AnswerDelta}} ({{num .Balance.AnswerDeltaSpent}} spent){{end}}</td></tr>
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
{{if .Mismatch}}<p class="verdict" id="answer-mismatch">{{.Mismatch}}</p>{{end}}
{{with .Audit}}<p class="muted" id="answer-audit">audit: {{.SourcesChecked}} sources fitted, {{.Classes}} classes ({{.NodesMerged}} nodes merged), worst loss {{num .WorstLoss}} ≤ {{num .Bound}} over {{.EdgesChecked}} edges{{if .SensorNoise}}; Gaussian sensor noise of rms {{num .SensorNoise}} of the mean reading stated: (ε, δ)-DP with δ = <span id="answer-delta">{{num .SensorNoiseDelta}}</span>, charged{{end}}</p>{{end}}
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
<tr><th>started (UTC)</th><th>command</th><th>status</th><th>epoch</th><th>σ</th><th>ρ left</th><th>top community</th><th>P</th><th>published</th><th>verdict</th><th>duration</th><th>run</th></tr>
{{range .Runs}}<tr><td>{{time .StartedAt}}</td><td>{{.Command}}</td><td>{{.Status}}</td><td>{{.Epoch}}</td><td>{{if .Sigma}}{{num .Sigma}}{{end}}</td><td>{{with .RhoRemaining}}{{num .}}{{end}}</td><td>{{.TopCommunity}}</td><td>{{if .TopCommunity}}{{pct .TopProbability}}{{end}}</td><td>{{.PublishedCommunity}}</td><td>{{with verdict .}}{{if eq . "noise"}}<span class="verdict">noise</span>{{else}}{{.}}{{end}}{{end}}</td><td>{{if .DurationMillis}}{{ms .DurationMillis}}{{end}}</td><td>{{.RunID}}</td></tr>
{{end}}</table>
{{else}}<p>no runs recorded for this scope yet</p>{{end}}
</body>
</html>
`
