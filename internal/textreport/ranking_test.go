package textreport

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
)

// TestRankingTable: one row per community up to the cap, in the report's
// order, the truth marked on its row only, and the rest counted.
func TestRankingTable(t *testing.T) {
	for _, n := range []int{1, maxRankingRows, maxRankingRows + 7} {
		rep := &community.Report{}
		for i := range n {
			rep.Communities = append(rep.Communities, community.Ranked{ID: 100 + i, Name: "c" + strconv.Itoa(i), Rank: i + 1, Share: 1 / float64(i+2), Size: i + 3})
		}
		var b bytes.Buffer
		if err := Ranking(&b, rep, map[int]bool{100: true}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		shown := min(n, maxRankingRows)
		want := 1 + shown
		if n > maxRankingRows {
			want++
			if last := lines[len(lines)-1]; !strings.Contains(last, strconv.Itoa(n-maxRankingRows)+" more") {
				t.Errorf("n=%d: last line %q does not count the %d left out", n, last, n-maxRankingRows)
			}
		}
		if len(lines) != want {
			t.Fatalf("n=%d: %d lines, want %d:\n%s", n, len(lines), want, b.String())
		}
		for i := range shown {
			f := strings.Fields(lines[1+i])
			if f[0] != strconv.Itoa(i+1) || f[1] != "c"+strconv.Itoa(i) {
				t.Errorf("n=%d row %d: %q", n, i, lines[1+i])
			}
			if marked := strings.Contains(lines[1+i], "true source"); marked != (i == 0) {
				t.Errorf("n=%d row %d: truth mark %v", n, i, marked)
			}
		}
	}
}

// TestRankingNoSource: a report without a source prints its reason, and
// no table.
func TestRankingNoSource(t *testing.T) {
	var b bytes.Buffer
	if err := Ranking(&b, &community.Report{NoSource: true, Reason: "nothing above the noise"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "nothing above the noise\n" {
		t.Errorf("got %q", got)
	}
}

// TestBudgetVerdict: the dense method ignores the budget; a sparse one is
// exact when the modelled run fits and an upper bound when it does not.
func TestBudgetVerdict(t *testing.T) {
	for _, c := range []struct {
		budget, estimate float64
		method, want     string
	}{
		{1, 100, "dense", "ignored"},
		{100, 1, "columns", "exact"},
		{1, 100, "columns", "upper bound"},
		{1, 100, "lanczos", "upper bound"},
	} {
		if got := BudgetVerdict(c.budget, c.estimate, c.method); !strings.Contains(got, c.want) {
			t.Errorf("BudgetVerdict(%g, %g, %s) = %q, want it to say %q", c.budget, c.estimate, c.method, got, c.want)
		}
	}
}
