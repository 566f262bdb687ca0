package textreport

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// oracleDelta is the CKS20 (Cor. 13) δ of a ρ-zCDP mechanism at ε,
// minimised by brute force over a fine grid of α (any α bounds δ, so the
// grid's minimum is within a hair of the infimum): independent of
// privacy.CKSDelta's bisection on the derivative.
func oracleDelta(rho, eps float64) float64 {
	best := 1.0
	for a := 1.0002; a < 5e3; a *= 1.0002 {
		best = min(best, math.Exp((a-1)*(a*rho-eps)+a*math.Log1p(-1/a))/(a-1))
	}
	return best
}

// oracleEpsilon and oracleRho invert oracleDelta by plain bisection:
// the least ε, and the largest ρ, whose δ is at most delta.
func oracleEpsilon(rho, delta float64) float64 {
	_, hi := bisect(64, func(m float64) bool { return oracleDelta(rho, m) <= delta })
	return hi
}

func oracleRho(eps, delta float64) float64 {
	lo, _ := bisect(16, func(m float64) bool { return oracleDelta(m, eps) > delta })
	return lo
}

// bisect narrows [0, hi] to where above turns true (false below it).
func bisect(hi float64, above func(float64) bool) (float64, float64) {
	lo := 0.0
	for range 50 {
		if m := (lo + hi) / 2; above(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return lo, hi
}

// number is the float after prefix in s (the test fails without one).
func number(t *testing.T, s, prefix string) float64 {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(prefix) + `([0-9.e+-]+[0-9])`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %q in:\n%s", prefix, s)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// near: printed (to 3 significant digits) agrees with want.
func near(printed, want float64) bool {
	return math.Abs(printed-want) <= 0.006*math.Abs(want)
}

// The budget's report says how ε's add under zCDP, and what one more
// release or answer costs, in numbers a DP user can check: each is
// recomputed here from the CKS20 conversion by brute force over α.
func TestBudgetSaysHowEpsilonsAdd(t *testing.T) {
	b := privacy.Budget{Epsilon: 4, Delta: 1e-6}
	rhoMax, rel := oracleRho(4, 1e-6), oracleRho(1, 1e-6)
	bal := privacy.Balance{Scope: "s", Releases: 1, Budget: b, RhoBudget: rhoMax, RhoSpent: rel,
		RhoRemaining: rhoMax - rel, EpsilonSpent: 1, AnswerEpsilonRemaining: math.Sqrt(2 * (rhoMax - rel))}
	var out bytes.Buffer
	if err := Budget(&out, privacy.NewLedgerReport("l.json", nil, []privacy.Balance{bal}), 1, 1e-5, paramName); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	next := oracleRho(1, 1e-5)
	if got, want := number(t, s, "ε=0.5 read ε="), oracleEpsilon(next+0.125, 1e-6); !near(got, want) {
		t.Errorf("release ε=1, δ=1e-5 + answer ε=0.5 read %g spent, CKS20 gives %.4g:\n%s", got, want, s)
	}
	if got, want := number(t, s, "ε_total=4 buys "), math.Floor(rhoMax/next); got != want {
		t.Errorf("budget buys %g releases at ε=1, CKS20 gives %g:\n%s", got, want, s)
	}
	if got := number(t, s, "δ=1e-05 costs ρ="); !near(got, next) {
		t.Errorf("one more release at ε=1, δ=1e-5 costs ρ=%g, CKS20 gives %.6g:\n%s", got, next, s)
	}
	if got, want := number(t, s, "ε spent would read "), oracleEpsilon(rel+next, 1e-6); !near(got, want) {
		t.Errorf("after one more release the scope reads %g, CKS20 gives %.4g:\n%s", got, want, s)
	}
	// An answer at ε=1 costs ρ = 0.5, more than what is left: refused.
	if !regexp.MustCompile(`private answer at ε=1 costs ρ=0\.5: refused`).MatchString(s) {
		t.Errorf("an answer of ρ=0.5 past ρ_max=%.4g not said refused:\n%s", rhoMax, s)
	}
}

// With an answers' share, answers' ε add as they are: one more answer at
// ε reads the spend's ε plus ε.
func TestBudgetAnswersShareAdds(t *testing.T) {
	b := privacy.Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}
	rhoMax, rel := oracleRho(4, 1e-6), oracleRho(1, 1e-6)
	bal := privacy.Balance{Scope: "s", Releases: 2, Budget: b, RhoBudget: rhoMax, RhoSpent: rel,
		RhoRemaining: rhoMax - rel, PureEpsilonSpent: 1, EpsilonSpent: 2, AnswerEpsilonRemaining: 3}
	var out bytes.Buffer
	if err := Budget(&out, privacy.NewLedgerReport("l.json", nil, []privacy.Balance{bal}), 0.5, 1e-6, paramName); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	want := oracleEpsilon(rel, 1e-6) + 1 + 0.5
	if got := number(t, s, "of ε_A: ε spent would read "); !near(got, want) {
		t.Errorf("one more answer at ε=0.5 reads %g, want %.4g:\n%s", got, want, s)
	}
	if got, want := number(t, s, "share buys "), math.Floor(rhoMax/oracleRho(0.5, 1e-6)); got != want {
		t.Errorf("the releases' share buys %g releases, CKS20 gives %g:\n%s", got, want, s)
	}
}
