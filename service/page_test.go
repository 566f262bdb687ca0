package service

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/recovery"
)

// unreadable is the status of a page whose database does not answer.
func unreadable(context.Context, time.Time) PageStatus {
	err := errors.New("connection refused")
	return PageStatus{BudgetError: err.Error(), RunsError: err.Error()}
}

func newTestPage(t *testing.T, opt PageOptions) (get func() string, page *Page) {
	t.Helper()
	page, err := NewPage(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { page.Close() })
	return func() string {
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("status %d, %q", rec.Code, rec.Header().Get("Content-Type"))
		}
		return rec.Body.String()
	}, page
}

// The page renders whatever it can: with the status unreadable it says
// why in place of the budget and the runs, and still shows the last
// ranking with its picture; community names are escaped, the picture is
// inline.
func TestPageWithoutStatus(t *testing.T) {
	get, page := newTestPage(t, PageOptions{Scope: "whisper", Ledger: "neo4j", Schedule: "@hourly", Status: unreadable})
	body := get()
	for _, want := range []string{"whisper", "budget unknown", "runs unknown", "no slot located since this server started"} {
		if !strings.Contains(body, want) {
			t.Errorf("page without a ranking lacks %q:\n%s", want, body)
		}
	}

	svg := `<svg xmlns="http://www.w3.org/2000/svg"><circle class="node" r="3"/></svg>`
	if err := os.WriteFile(page.PicturePath("run-l"), []byte(svg), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := &community.Report{Communities: []community.Ranked{{Rank: 1, Name: "<b>north</b>", Share: 0.75, Size: 40}, {Rank: 2, Name: "south", Share: 0.25, Size: 40}}}
	page.Located("2026-11-22T10:00Z", "run-r", &job.LocateSummary{RunID: "run-l", Estimator: "posterior", Report: rep,
		NoiseDominated: true, NoiseReason: graphcloak.PosteriorNoiseReason(1.5), PosteriorToPrior: 1.5, Plot: page.PicturePath("run-l")})
	body = get()
	for _, want := range []string{"2026-11-22T10:00Z", "run-l", "run-r", "&lt;b&gt;north&lt;/b&gt;", "75.0%", "noise-dominated: the top community is only 1.5× its prior", svg} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<b>north</b>") {
		t.Error("a community name is not escaped")
	}
}

// In private-answer mode the page shows the last slot's answer: a refusal
// in the one fixed text, or the published community with the audit and,
// for randomized response, that the readings were outside the model —
// never what was measured of them.
func TestPagePrivateAnswer(t *testing.T) {
	get, page := newTestPage(t, PageOptions{Scope: "whisper", Ledger: "neo4j", Schedule: "@hourly", PrivateAnswer: true, Status: unreadable})
	if body := get(); !strings.Contains(body, "no slot answered since this server started") {
		t.Errorf("page before any answer:\n%s", body)
	}
	page.Answered("2026-11-26T10:00Z", "run-a", nil, &recovery.MismatchError{Residual: 0.4, Tol: 0.01, TwoSourceResidual: 1e-9, Tau: 1})
	if body := get(); !strings.Contains(body, `id="answer-refused"`) || !strings.Contains(body, "outside the model") ||
		strings.Contains(body, "0.4") || strings.Contains(body, "two sources explain") {
		t.Errorf("page after a refusal: want the fixed text, no measured residual:\n%s", body)
	}
	page.Answered("2026-11-26T11:00Z", "run-b", &job.AnswerSummary{Answer: &answer.Result{Community: "north",
		Mismatch: answer.AnsweredByRR, Audit: &answer.Audit{SourcesChecked: 34, Classes: 34, EdgesChecked: 78, WorstLoss: 0.5, Bound: 0.5}}}, nil)
	body := get()
	for _, want := range []string{"run-b", "<b>north</b>", `id="answer-mismatch"`, `id="answer-audit"`, "34 sources fitted"} {
		if !strings.Contains(body, want) {
			t.Errorf("page after an rr answer lacks %q:\n%s", want, body)
		}
	}
}

// The page's run table shows each localisation's recorded verdict.
func TestPageRunsVerdict(t *testing.T) {
	yes, no := true, false
	d := pageData{Scope: "s", PageStatus: PageStatus{Runs: []job.RunRow{{RunID: "run-noise", Command: "locate", NoiseDominated: &yes},
		{RunID: "run-answer", Command: "locate", NoiseDominated: &no}, {RunID: "run-release", Command: "release"}}}}
	var b strings.Builder
	if err := pageTemplate.Execute(&b, d); err != nil {
		t.Fatal(err)
	}
	body := b.String()
	row := func(id string) string {
		i := strings.Index(body, id)
		if i < 0 {
			t.Fatalf("no row %s", id)
		}
		return body[strings.LastIndex(body[:i], "<tr>"):i]
	}
	if !strings.Contains(row("run-noise"), `<span class="verdict">noise</span>`) || !strings.Contains(row("run-answer"), "<td>answer</td>") ||
		strings.Contains(row("run-release"), "noise") || strings.Contains(row("run-release"), "answer") {
		t.Fatalf("verdicts not in the run table:\n%s", body)
	}
}

// The page's run table shows a private answer's published community in
// its own column (a localisation's top community has a probability; an
// answer's has none).
func TestPageRunsPublishedCommunity(t *testing.T) {
	d := pageData{Scope: "s", PageStatus: PageStatus{Runs: []job.RunRow{{RunID: "run-answer", Command: "answer", PublishedCommunity: "north-wing"},
		{RunID: "run-locate", Command: "locate", TopCommunity: "3", TopProbability: 0.5}}}}
	var b strings.Builder
	if err := pageTemplate.Execute(&b, d); err != nil {
		t.Fatal(err)
	}
	body := b.String()
	head := body[strings.Index(body, `<table id="runs">`):]
	head = head[:strings.Index(head, "</tr>")]
	cells := func(id string) []string {
		i := strings.Index(body, id)
		row := body[strings.LastIndex(body[:i], "<tr>"):i]
		return strings.Split(strings.TrimPrefix(row, "<tr><td>"), "</td><td>")
	}
	col := slices.Index(strings.Split(strings.TrimPrefix(head, "\n<tr><th>"), "</th><th>"), "published")
	if col < 0 {
		t.Fatalf("no published column: %s", head)
	}
	if c := cells("run-answer"); c[col] != "north-wing" {
		t.Errorf("answer row's published cell %q, want north-wing: %v", c[col], c)
	}
	if c := cells("run-locate"); c[col] != "" {
		t.Errorf("localisation row's published cell %q, want blank: %v", c[col], c)
	}
}
