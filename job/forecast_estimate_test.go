package job

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	graphcloak "github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestDryRunSaysItsEstimate: once the private answer's first trials are
// timed, the dry run tells the modelled time of the whole dry run — the
// time so far and its forecasts (cost.DryRunForecastsOn) at the answer's time a
// trial, the per-node trials priced by the step rate on a graph whose
// action is a Chebyshev series (at the answer's time where it is dense) —
// once, and only when it is over 10 s.
func TestDryRunSaysItsEstimate(t *testing.T) {
	for _, c := range []struct {
		name  string
		g     *laplacian.Graph
		dense bool
	}{{"dense", completeGraph(t, 40), true}, {"sparse", pathGraph(t, 5000), false}} {
		var said []string
		part := make([]int, c.g.N())
		p := &ReleasePlan{Spec: ReleaseSpec{ForecastTrials: 100, DryRun: true, Tau: 1}, began: time.Now(),
			env: Env{Say: func(l string) { said = append(said, l) }}}
		p.sayForecastEstimate(c.g, part, 0)(30, 2)
		if len(said) != 1 {
			t.Fatalf("%s: said %q, want one estimate line", c.name, said)
		}
		per, how := cost.PerNodeTrialSeconds(c.g, 1, 100, 0)
		var K int
		var ns float64
		_, err := fmt.Sscanf(how, "3.2 column actions of K = %d at this machine's %g ns a step and 0.32 µs a node", &K, &ns)
		model := 3.2*float64(K)*float64(2*c.g.NumEdges()+c.g.N())*ns*1e-9 + 0.32e-6*float64(c.g.N())
		if c.dense != (per == 0) || (!c.dense && (err != nil || math.Abs(per/model-1) > 0.01)) {
			t.Errorf("%s: per-node trial priced at %g (%s)", c.name, per, how)
		}
		// At a given step: the same model, exactly (the answer's at five:
		// cost's TestAnswerTrialIsFivePerNode).
		if at, _ := cost.PerNodeTrialSeconds(c.g, 1, 100, ns*1e-9); !c.dense && math.Abs(at-model) > 1e-12*model {
			t.Errorf("%s: cost.PerNodeTrialSeconds %g at a given step, the model at %g ns a step %g", c.name, at, ns, model)
		}
		// The answer's round at its measured time; the per-node ones are
		// priced by a rate measured again, so only named here.
		ans := p.dryRunSteps(c.g, part, 1, 30, 0)[0]
		if want := cost.DryRunForecastsOn(c.g, part, 100, 1, 30, 0, false)[0].Seconds; ans.Seconds != want {
			t.Errorf("%s: the answer's step %+v, want its round and calibration, %g s", c.name, ans, want)
		}
		for _, want := range []string{"private-answer forecast " + answer.HumanDuration(time.Duration(ans.Seconds*float64(time.Second))),
			", forecast trials ", ", forecast by source mass ", " so far, "} {
			if !strings.Contains(said[0], want) {
				t.Errorf("%s: line %q lacks %q", c.name, said[0], want)
			}
		}
		if !strings.HasPrefix(said[0], "estimated ") || !strings.Contains(said[0], " for the dry run (") ||
			!strings.Contains(said[0], "the answer's trials at 30 s, the first 2") {
			t.Errorf("%s: line %q", c.name, said[0])
		}
		if c.dense && !strings.Contains(said[0], "per-node trials at 30 s, the answer's)") {
			t.Errorf("%s: line %q, want the per-node trials at the answer's time", c.name, said[0])
		}
		said = nil
		p.sayForecastEstimate(c.g, part, 0)(0.001, 2)
		if len(said) != 0 && c.dense {
			t.Errorf("%s: a quick forecast said %q", c.name, said)
		}
	}
}

// pathGraph is the path on n nodes.
func pathGraph(t *testing.T, n int) *laplacian.Graph {
	var edges []laplacian.Edge
	for i := 1; i < n; i++ {
		edges = append(edges, laplacian.Edge{U: int32(i - 1), V: int32(i), Weight: 1})
	}
	return edgesGraph(t, n, edges)
}

// completeGraph is the complete graph on n nodes (exp(−τL) dense: its
// Chebyshev degree is large for its size).
func completeGraph(t *testing.T, n int) *laplacian.Graph {
	var edges []laplacian.Edge
	for i := range n {
		for j := range i {
			edges = append(edges, laplacian.Edge{U: int32(j), V: int32(i), Weight: 1})
		}
	}
	return edgesGraph(t, n, edges)
}

func edgesGraph(t *testing.T, n int, edges []laplacian.Edge) *laplacian.Graph {
	t.Helper()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprint(i)
	}
	g, err := laplacian.FromEdges(n, keys, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRoundsProgress: a forecast's rounds (each a simulation whose count
// restarts) report as one step of rounds·trials, never reaching its total
// before end — so a progress log goes on through every round — and the
// first trials are timed once, in the first round, when two trials a
// worker after the first have finished.
func TestRoundsProgress(t *testing.T) {
	type call struct{ done, total int }
	var got []call
	var firsts []int
	workers := max(1, runtime.GOMAXPROCS(0))
	report, end := roundsProgress(func(d, n int) { got = append(got, call{d, n}) }, 5, 10, func(_ float64, timed int) { firsts = append(firsts, timed) })
	for round := range 3 {
		for d := 1; d <= 10; d++ {
			report(d, 10)
		}
		if last := got[len(got)-1]; last != (call{min(round*10+10, 49), 50}) {
			t.Errorf("round %d ends at %v", round, last)
		}
	}
	for _, c := range got {
		if c.total != 50 || c.done >= 50 {
			t.Fatalf("reported %v before the end", c)
		}
	}
	end()
	if last := got[len(got)-1]; last != (call{50, 50}) {
		t.Errorf("end reported %v", last)
	}
	if len(firsts) != 1 || firsts[0] != min(2*workers+1, 10) {
		t.Errorf("first trials told %v, want once at %d", firsts, min(2*workers+1, 10))
	}
}

// TestSayStepEstimates: the evidence test's estimate is told once, when
// its first block of 32 draws is done, as its draws at that block's pace
// (from the recovery's end), only when over 10 s; every report is passed
// on.
func TestSayStepEstimates(t *testing.T) {
	var said []string
	var passed int
	p := sayStepEstimates(func(string, int, int) { passed++ }, func(l string) { said = append(said, l) })
	p("recovery", 0, 1)
	p("recovery", 1, 1)
	time.Sleep(32 * 60 * time.Millisecond) // 199 draws at ≥ 60 ms: over 10 s
	for d := 1; d <= 33; d++ {
		p("evidence test", d, 199)
		if d < 32 && len(said) != 0 {
			t.Fatalf("told at draw %d, before its block was done: %q", d, said)
		}
	}
	if passed != 35 || len(said) != 1 || !strings.HasPrefix(said[0], "estimated ") || !strings.Contains(said[0], "for the evidence test (199 null draws at ") {
		t.Errorf("passed %d, said %q", passed, said)
	}
	said = nil
	p = sayStepEstimates(nil, func(l string) { said = append(said, l) })
	p("recovery", 1, 1)
	for d := 1; d <= 32; d++ {
		p("evidence test", d, 199) // at once: far under 10 s
	}
	if len(said) != 0 {
		t.Errorf("a quick test said %q", said)
	}
}

// TestMonotone: counts that go back are passed on as the largest so far.
func TestMonotone(t *testing.T) {
	var got []int
	p := monotone(func(d, _ int) { got = append(got, d) })
	for _, d := range []int{11, 5, 20, 19, 900} {
		p(d, 900)
	}
	if want := []int{11, 11, 20, 20, 900}; !slices.Equal(got, want) {
		t.Errorf("passed %v, want %v", got, want)
	}
	if monotone(nil) != nil {
		t.Error("monotone(nil) is not nil")
	}
}

// TestDryRunSaysItsFirstEstimate: before anything long runs, the dry run
// tells the modelled time of the whole dry run — Δ2 when it computes it,
// the forecasts with the per-node trials priced by the step rate and the
// answer's at cost.AnswerTrialFactor of them — and nothing on a graph whose
// action is dense (small: its forecasts are quick).
func TestDryRunSaysItsFirstEstimate(t *testing.T) {
	for _, c := range []struct {
		name  string
		g     *laplacian.Graph
		dense bool
	}{{"dense", completeGraph(t, 40), true}, {"sparse", pathGraph(t, 5000), false}} {
		var said []string
		p := &ReleasePlan{Spec: ReleaseSpec{ForecastTrials: 100, DryRun: true, Tau: 1}, began: time.Now(),
			env: Env{Say: func(l string) { said = append(said, l) }}}
		p.sayDryRunEstimate(c.g, &graphcloak.ReleaseEstimate{SecondsEstimate: 30}, 30)
		if c.dense {
			if len(said) != 0 {
				t.Errorf("%s: said %q", c.name, said)
			}
			continue
		}
		if len(said) != 1 || !strings.HasPrefix(said[0], "estimated ") || !strings.Contains(said[0], " for the dry run (") ||
			!strings.Contains(said[0], ", Δ2 30 s, private-answer forecast ") || !strings.Contains(said[0], fmt.Sprintf("; the answer's at %d×)", cost.AnswerTrialFactor)) {
			t.Errorf("%s: said %q", c.name, said)
		}
	}
}

// TestDryRunSaysItsGuess: on a graph of guessNodes nodes or more the dry
// run's guess (dryRunGuess) is the model's own time and Δ2 guessed
// (sensitivity.GuessFirst, cost.DryRunDelta2Guess), the forecasts at the floor
// of their budget; below guessNodes there is none. holdDryRunGuess tells
// it once cost.GuessDeadline after the dry run began has passed, and never
// when dropped before. cost.Delta2Guess (the graph experiment's) is not capped.
func TestDryRunSaysItsGuess(t *testing.T) {
	for _, n := range []int{guessNodes - 1, guessNodes} {
		g := pathGraph(t, n)
		// Many trials: the forecasts' rounds outlast their budget.
		p := &ReleasePlan{Spec: ReleaseSpec{ForecastTrials: 5000, DryRun: true, Tau: 1}, began: time.Now()}
		line := p.dryRunGuess(g)
		if n < guessNodes {
			if line != "" {
				t.Errorf("%d nodes: guessed %q", n, line)
			}
			continue
		}
		guess := sensitivity.GuessFirst(g, 1, sensitivity.Options{})
		want := ", Δ2 " + human(guess.ModelSeconds+cost.DryRunDelta2Guess(g.NumEdges())) + ", private-answer forecast "
		if !strings.HasPrefix(line, "estimated ") || !strings.Contains(line, want) || !strings.Contains(line, "; Δ2's method modelled in about ") {
			t.Errorf("%d nodes: guessed %q, want a line with %q", n, line, want)
		}
		// Dropped before its deadline (cost.GuessDeadline from now; the trials'
		// price is kept, so the hold takes milliseconds): never told.
		var said []string
		var mu sync.Mutex
		p.began, p.env.Say = time.Now(), func(l string) { mu.Lock(); said = append(said, l); mu.Unlock() }
		p.holdDryRunGuess(g)()
		time.Sleep(time.Until(p.began.Add(cost.GuessDeadline + 200*time.Millisecond))) // past it: a timer left would have fired
		mu.Lock()
		if len(said) != 0 {
			t.Errorf("dropped before the deadline: said %q", said)
		}
		mu.Unlock()
		// Past its deadline: told (once), and dropping it after changes nothing.
		lines := make(chan string, 2)
		p.began, p.env.Say = time.Now().Add(-cost.GuessDeadline), func(l string) { lines <- l }
		drop := p.holdDryRunGuess(g)
		select {
		case l := <-lines:
			if !strings.Contains(l, want) {
				t.Errorf("told %q, want a line with %q", l, want)
			}
		case <-time.After(time.Minute):
			t.Fatal("the guess was not told past its deadline")
		}
		drop()
		if len(lines) != 0 {
			t.Errorf("told again: %q", <-lines)
		}
	}
	if math.Abs(cost.DryRunDelta2Guess(1000)-0.03) > 1e-15 || cost.DryRunDelta2Guess(1e6) != 5 {
		t.Error("cost.DryRunDelta2Guess: 30 µs an edge up to 5 s")
	}
	// cost.Delta2Guess: the model's time and, where Δ2 needs the pilot (a path
	// at τ = 1: no Gram scheme), 30 µs an edge without the dry run's cap.
	g := pathGraph(t, 200_000)
	guess := sensitivity.GuessFirst(g, 1, sensitivity.Options{})
	if got, want := cost.Delta2Guess(g, 1, sensitivity.Options{}), guess.ModelSeconds+30e-6*float64(g.NumEdges()); guess.Modelled || math.Abs(got-want) > 1e-12 || got < 5 {
		t.Errorf("cost.Delta2Guess on a path of 2·10⁵ nodes: %g s, want %g s (modelled %v)", got, want, guess.Modelled)
	}
	if got, want := cost.Delta2Guess(g, 1, sensitivity.Options{TimeBudget: time.Second}), guess.ModelSeconds+1; math.Abs(got-want) > 1e-12 {
		t.Errorf("cost.Delta2Guess with a 1 s time budget: %g s, want %g s", got, want)
	}
}
