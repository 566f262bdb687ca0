package cost

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// longLine is the threshold these tests tell lines over: a command's
// (job.LongStep).
const longLine = 5 * time.Second

// long is longLine in seconds, as the lines take it.
var long = longLine.Seconds()

// TestSensitivityEstimateCountsTimeSoFar: the sensitivity command's line
// is the time since it began (its load and Δ2's model) plus Δ2's modelled
// time, named apart; it is said once their sum passes longLine, and not
// while it is below.
func TestSensitivityEstimateCountsTimeSoFar(t *testing.T) {
	gr, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	want := sensitivity.ChooseMethod(gr, 1, sensitivity.Options{})
	// Just begun, a model under the line's threshold says nothing. The
	// model is timed by a pilot (about 1 s quiet, 2.6 s seen at load 21):
	// where a loaded machine times it past half the threshold, a line
	// would be right, and only the rest of the test is checked.
	if want.Seconds < longLine.Seconds()/2 {
		if said := sensitivityLine(gr, 1, sensitivity.Options{}, nil, time.Now(), long); said != "" {
			t.Errorf("Δ2 modelled at %.2g s, just begun: said %q", want.Seconds, said)
		}
	} else {
		t.Logf("Δ2 modelled at %g s on this loaded machine (over %v): the just-begun check skipped", want.Seconds, longLine/2)
	}
	// Begun long ago (10 longLines): the so-far dwarfs Δ2's model even
	// when a loaded machine's pilot times it several times slower, so a
	// model that counted the so-far again would show.
	const began = 10 * longLine
	line := sensitivityLine(gr, 1, sensitivity.Options{}, nil, time.Now().Add(-began), long)
	re := regexp.MustCompile(`^estimated (.+) for the sensitivity \((.+) so far, Δ2 at τ = 1 (.+): (\S+), modelled`)
	m := re.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("line %q", line)
	}
	method := m[4]
	T, S, D := humanSeconds(t, m[1]), humanSeconds(t, m[2]), humanSeconds(t, m[3])
	// Each of the three is told to its rounding (humanResolution): their
	// sum within the three.
	if S < began.Seconds() || math.Abs(T-(S+D)) > humanResolution(T)+humanResolution(S)+humanResolution(D)+0.01 || method != want.Name() || D > began.Seconds()/2 {
		t.Errorf("line %q: %g s = %g s so far + %g s of %s, want ≥ %v so far and Δ2 by %s", line, T, S, D, method, began, want.Name())
	}
}

// humanResolution is how far answer.HumanDuration's text of s seconds
// may be from s under an hour: a tenth's rounding under 10 s, a second's
// under a minute, a floored second above.
func humanResolution(s float64) float64 {
	switch {
	case s < 10:
		return 0.05
	case s < 60:
		return 0.5
	}
	return 1
}

// humanSeconds reads back answer.HumanDuration under an hour.
func humanSeconds(t *testing.T, s string) float64 {
	t.Helper()
	var m, sec float64
	if _, err := fmt.Sscanf(s, "%g min %g s", &m, &sec); err == nil {
		return 60*m + sec
	}
	if _, err := fmt.Sscanf(s, "%g s", &sec); err == nil {
		return sec
	}
	t.Fatalf("duration %q", s)
	return 0
}

// TestGraphExperimentEstimate: the graph experiment's line sums
// community detection (Leiden asked for), Δ2 at each τ (its cost model)
// and each τ's trials (ε × trials at PerNodeTrialSeconds), and is said
// once over longLine (10 000 trials here), with the time since the command
// began (Δ2's models). Past GuessDeadline the guess (Delta2Guess
// for Δ2's model and run) is said first, the same sum; before it, never.
func TestGraphExperimentEstimate(t *testing.T) {
	gr, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	taus, epsilons, trials := []float64{1, 2}, []float64{1, 4}, 10_000
	sim := func(g *laplacian.Graph, part []int) forecast.Simulation {
		return forecast.Simulation{Graph: g, Partition: part, Trials: trials}
	}
	sum := func(line, delta2 string) (total, parts float64, m []string) {
		m = regexp.MustCompile(`^estimated (.+) for the experiment \((?:so far (.+), )?communities (.+), Δ2 at τ = 1` + delta2 + ` (.+), trials at τ = 1 (.+), Δ2 at τ = 2` + delta2 + ` (.+), trials at τ = 2 (.+)\)$`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %q", line)
		}
		for _, s := range m[2:] {
			if s != "" {
				parts += humanSeconds(t, s)
			}
		}
		return humanSeconds(t, m[1]), parts, m
	}
	for _, late := range []bool{false, true} {
		began := time.Now().Add(time.Hour) // the model is never late
		if late {
			began = time.Now().Add(-GuessDeadline)
		}
		var buf bytes.Buffer
		var mu sync.Mutex
		say := func(line string) { mu.Lock(); defer mu.Unlock(); buf.WriteString(line + "\n") }
		TellGraphExperiment(say, GraphExperimentWork{Simulation: sim(gr, nil), Taus: taus, Epsilons: len(epsilons), Communities: "leiden"}, began, long)
		mu.Lock()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		mu.Unlock()
		if want := map[bool]int{false: 1, true: 2}[late]; len(lines) != want {
			t.Fatalf("late %v: said %q, want %d lines", late, lines, want)
		}
		// Each part is rendered to 0.1 s under 10 s, to 1 s under a minute.
		T, parts, m := sum(lines[len(lines)-1], "")
		if math.Abs(T-parts) > 0.02*T+6 || T <= longLine.Seconds() {
			t.Errorf("line %q: %g s, its parts %g s", lines[len(lines)-1], T, parts)
		}
		// The modelled line counts the time since began (Δ2's models in it).
		if so := m[2]; late && (so == "" || humanSeconds(t, so) < GuessDeadline.Seconds()) || !late && so != "" {
			t.Errorf("late %v: line %q, time so far %q", late, lines[len(lines)-1], so)
		}
		if late {
			T, parts, m := sum(lines[0], " guessed")
			if math.Abs(T-parts) > 0.02*T+6 {
				t.Errorf("guess %q: %g s, its parts %g s", lines[0], T, parts)
			}
			for i, tau := range taus {
				if g, want := humanSeconds(t, m[4+2*i]), Delta2Guess(gr, tau, sensitivity.Options{}); math.Abs(g-want) > 0.05*want+0.1 {
					t.Errorf("guess %q: Δ2 at τ = %g %g s, Delta2Guess %g s", lines[0], tau, g, want)
				}
			}
		}
	}
}

// TestAnswerExperimentEstimate: the private-answer experiment's line is
// the time so far, each τ's trials (trials × answerTrialSecondsAt), each
// τ and ε's calibration (privacy.CalibrationSeconds) and each ε's ceiling
// (forecast.CountCeilingWork), summed; none without a partition.
func TestAnswerExperimentEstimate(t *testing.T) {
	gr, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int, gr.N())
	for v := range part {
		part[v] = v % 80 / 20 // four bands of columns
	}
	taus, epsilons, trials := []float64{1, 2}, []float64{1, 4, 8}, 10_000
	sim := func(g *laplacian.Graph, part []int) forecast.Simulation {
		return forecast.Simulation{Graph: g, Partition: part, Trials: trials}
	}
	if said := answerExperimentLine(sim(gr, nil), taus, len(epsilons), time.Now(), long); said != "" {
		t.Fatalf("said %q without a partition", said)
	}
	line := answerExperimentLine(sim(gr, part), taus, len(epsilons), time.Now().Add(-time.Second), long)
	m := regexp.MustCompile(`^estimated (.+) for the experiment \(so far (.+), trials at τ = 1 (.+), trials at τ = 2 (.+), calibrations (.+), ceilings (.+)\)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("line %q", line)
	}
	sum := 0.0
	for _, s := range m[2:] {
		sum += humanSeconds(t, s)
	}
	if T := humanSeconds(t, m[1]); math.Abs(T-sum) > 0.02*T+6 || T <= longLine.Seconds() {
		t.Errorf("line %q: %g s, its parts %g s", line, T, sum)
	}
	if so := humanSeconds(t, m[2]); so < 1 || so > 60 {
		t.Errorf("line %q: %g s so far, began a second ago", line, so)
	}
	cal := 2 * 3 * privacy.CalibrationSeconds(gr, part)
	ceil := 3 * forecast.CountCeilingWork(gr, part).Seconds
	for i, want := range []float64{cal, ceil} {
		if got := humanSeconds(t, m[5+i]); math.Abs(got-want) > 0.05*want+0.1 {
			t.Errorf("line %q: part %d %g s, want %g s", line, 5+i, got, want)
		}
	}
	// Each τ's trials are trials × answerTrialSecondsAt at one step rate r
	// the line measured: affine in r (A_τ·r + B_τ a trial). The rate is
	// read back from τ = 1's part and must price τ = 2's as the line does —
	// whatever the machine's load made r — and be a rate a machine has
	// (a line that forgot the trials' count reads back 10⁴ times smaller).
	perAt := func(tau, r float64) float64 { per, _ := answerTrialSecondsAt(gr, tau, trials, r); return per }
	got1, got2 := humanSeconds(t, m[3]), humanSeconds(t, m[4])
	// (at steps of 1 and 2 s: a step of 0 is this machine's, measured)
	A1, A2 := perAt(taus[0], 2)-perAt(taus[0], 1), perAt(taus[1], 2)-perAt(taus[1], 1)
	B1, B2 := perAt(taus[0], 1)-A1, perAt(taus[1], 1)-A2
	r := (got1/float64(trials) - B1) / A1
	want2 := float64(trials) * (A2*r + B2)
	tol := humanResolution(got1)*A2/A1 + humanResolution(got2) + 0.01*want2
	if !(r > 1e-12 && r < 1e-6) || math.Abs(got2-want2) > tol {
		t.Errorf("line %q: trials at τ = 1 %g s read back as %.3g s a step, which prices τ = 2 at %g s (± %.2g), not %g s", line, got1, r, want2, tol, got2)
	}
}
