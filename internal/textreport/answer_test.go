package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestAnswerMismatchWarning: an answer by randomized response says so,
// naming the parameter that asked for it; an exact one has no warning.
// Both show the community, the charge and the analyst's posterior.
func TestAnswerMismatchWarning(t *testing.T) {
	for _, exact := range []bool{true, false} {
		cal := privacy.AnswerCalibration{Mechanism: "geometric", Epsilon: 1, Alpha: 1, Cap: 2, Scale: 0.5, Rho: 0.5, K: 2}
		s := &job.AnswerSummary{Graph: "karate", NodeCount: 34, RelationshipCount: 78, Scope: "s", Epoch: "e", Communities: "leiden",
			Answer: &answer.Result{Community: "east", Calibration: cal, Posterior: locateReport(), ExactSource: exact, Mismatch: "misfit 0.3"}}
		var b bytes.Buffer
		if err := Answer(&b, s, paramName); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		warn := lineWith(out, "WARNING")
		if (warn != "") == exact {
			t.Errorf("exact %v: warning %q", exact, warn)
		}
		if !exact && (!strings.Contains(warn, paramName(paramOnMismatch)+" rr") || !strings.Contains(warn, "misfit 0.3")) {
			t.Errorf("warning %q: want the mismatch parameter and its reason", warn)
		}
		for _, want := range []string{"private answer: community east", `charged ε = 1 (ρ = 0.5) to scope "s", epoch "e"`, "posterior over communities", "west"} {
			if !strings.Contains(out, want) {
				t.Errorf("exact %v: lacks %q:\n%s", exact, want, out)
			}
		}
	}
}

// TestAnswerPlan: a dry run says what it would charge and the balance now,
// and publishes no community.
func TestAnswerPlan(t *testing.T) {
	s := &job.AnswerSummary{DryRun: true, Graph: "karate", Scope: "s", Epoch: "e", Communities: "leiden",
		Calibration: &privacy.AnswerCalibration{Mechanism: "geometric", Epsilon: 2, Rho: 2, K: 3},
		Audit:       &answer.Audit{SourcesChecked: 34, Classes: 30, Accuracy: 0.7},
		Balance:     &privacy.Balance{Scope: "s"}, Forecast: &forecast.Forecast{Trials: 20, CommunityAccuracy: 0.7}}
	var b bytes.Buffer
	if err := Answer(&b, s, paramName); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"dry run: nothing charged", "would charge ε = 2", "audit: 34 sources fitted", "ledger now:", "forecast (20 simulated sources)"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "private answer: community") {
		t.Errorf("plan publishes a community:\n%s", out)
	}
}
