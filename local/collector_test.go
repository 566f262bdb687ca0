package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestCollectorRefusesHostileReports: every kind of bad line is refused
// with its reason and nothing of it is stored; the one good report of
// each node is stored once and is the release's row.
func TestCollectorRefusesHostileReports(t *testing.T) {
	nodes, keys := testKeys(4)
	o := testOrder(nodes)
	withoutKey := map[string][]byte{}
	for k, v := range keys {
		withoutKey[k] = v
	}
	delete(withoutKey, "n3")
	other := o
	other.Epoch, other.ReleaseID = "e0", "rel-"+strings.Repeat("ab", 16)
	otherScope := o
	otherScope.Scope = "building-8"
	good := report(o, keys, "n0", 1234)
	tampered := good
	tampered.Grid, tampered.Value = 1235, good.Value+1.0/(1<<20) // consistent value, stale MAC
	badValue := good
	badValue.Value = 0.5
	swapped := report(o, keys, "n1", 99)
	swapped.MAC = report(o, keys, "n2", 99).MAC // n2's MAC on n1's report
	flipped := report(o, keys, "n1", 7)
	flipped.MAC = strings.Repeat("0", 64)
	v3 := report(o, keys, "n1", 7)
	v3.Version = 3
	v1 := report(o, keys, "n1", 7) // a version 1 report has no order digest
	v1.Version, v1.OrderSHA256 = 1, ""
	split := o // the same release split to n1 alone: its report names that order
	split.Nodes = []string{"n1"}
	cases := []struct {
		name string
		line []byte
		want Reason
	}{
		{"wrong MAC", line(t, flipped), BadMAC},
		{"another node's MAC", line(t, swapped), BadMAC},
		{"grid changed after the MAC", line(t, tampered), BadMAC},
		{"value not grid·2^-k", line(t, badValue), Malformed},
		{"unknown node", line(t, report(o, map[string][]byte{"x": []byte("k")}, "x", 1)), UnknownNode},
		{"replay from another epoch", line(t, report(other, keys, "n1", 5)), OtherEpoch},
		{"other scope", line(t, report(otherScope, keys, "n1", 5)), OtherEpoch},
		{"an epoch order", []byte(`{"kind":"graphcloak.epoch-order","version":1}`), NotAReport},
		{"a JSON array", []byte(`[1,2,3]`), NotAReport},
		{"a JSON string", []byte(`"n1,0.5"`), NotAReport},
		{"an empty object", []byte(`{}`), NotAReport},
		{"a CSV reading", []byte(`n1,0.53`), Malformed},
		{"truncated JSON", line(t, good)[:40], Malformed},
		{"unknown field", bytes.Replace(line(t, good), []byte(`"mac"`), []byte(`"raw":0.5,"mac"`), 1), Malformed},
		{"grid as a string", bytes.Replace(line(t, good), []byte(`"grid":1234`), []byte(`"grid":"1234"`), 1), Malformed},
		{"two objects on a line", append(line(t, good), line(t, good)...), Malformed},
		{"version 3", line(t, v3), NotAReport},
		{"version 1", line(t, v1), OldVersion},
		{"a report of the release split to its node alone", line(t, report(split, keys, "n1", 7)), OtherOrder},
		{"oversized line", bytes.Repeat([]byte("x"), DefaultMaxLine+1), Oversized},
	}
	dir := t.TempDir()
	clk := &clock{t0}
	c := openTest(t, o, withoutKey, dir, clk)
	defer c.Close()
	for _, tc := range cases {
		res := c.Submit([][]byte{tc.line}, 1)
		if res[0].Reason != tc.want || res[0].Result != "refused" {
			t.Errorf("%s: got %q (%s), want %q", tc.name, res[0].Reason, res[0].Error, tc.want)
		}
	}
	if res := c.Submit([][]byte{line(t, report(o, keys, "n3", 1))}, 1); res[0].Reason != UnknownNode {
		t.Errorf("node without a MAC key: got %q, want unknown-node", res[0].Reason)
	}
	if res := c.Submit([][]byte{line(t, good)}, 1); res[0].Reason != Accepted {
		t.Fatalf("good report refused: %+v", res[0])
	}
	if res := c.Submit([][]byte{line(t, good)}, 1); res[0].Reason != Duplicate {
		t.Errorf("identical duplicate: got %q, want duplicate", res[0].Reason)
	}
	if res := c.Submit([][]byte{line(t, report(o, keys, "n0", 4321))}, 1); res[0].Reason != SecondValue {
		t.Errorf("second value: got %q, want second-value", res[0].Reason)
	}
	clk.t = o.NotBefore.Add(-time.Second)
	if res := c.Submit([][]byte{line(t, report(o, keys, "n1", 1))}, 1); res[0].Reason != Early {
		t.Errorf("before notBefore: got %q, want early", res[0].Reason)
	}
	clk.t = o.NotAfter.Add(time.Second)
	if res := c.Submit([][]byte{line(t, report(o, keys, "n1", 1))}, 1); res[0].Reason != Late {
		t.Errorf("after notAfter: got %q, want late", res[0].Reason)
	}
	rel, err := c.CloseEpoch("test")
	if err != nil {
		t.Fatal(err)
	}
	if res := c.Submit([][]byte{line(t, report(o, keys, "n2", 1))}, 1); res[0].Reason != Closed {
		t.Errorf("after close: got %q, want closed", res[0].Reason)
	}
	if len(rel.Keys) != 1 || rel.Keys[0] != "n0" || rel.Grid[0] != 1234 {
		t.Errorf("release rows %v %v, want n0 → 1234 only", rel.Keys, rel.Grid)
	}
	if want := []string{"n1", "n2", "n3"}; fmt.Sprint(rel.Meta.Missing) != fmt.Sprint(want) || rel.Meta.Expected != 4 {
		t.Errorf("missing %v (expected %d), want %v of 4", rel.Meta.Missing, rel.Meta.Expected, want)
	}
	st := c.Stats()
	if st.Accepted != 1 || st.Received != int64(len(cases))+7 {
		t.Errorf("stats %+v", st)
	}
	// The journal holds the header, the one report and the close.
	data, _ := os.ReadFile(journalPath(dir, o.ReleaseID))
	if n := bytes.Count(data, []byte("\n")); n != 3 {
		t.Errorf("journal has %d lines, want 3:\n%s", n, data)
	}
}

// TestCollectorRestart: a collector abandoned without closing (its state
// dropped) and opened again on the same journal has every acknowledged
// report, refuses them as duplicates, and its release holds each once.
func TestCollectorRestart(t *testing.T) {
	nodes, keys := testKeys(6)
	o := testOrder(nodes)
	dir := t.TempDir()
	clk := &clock{t0}
	c := openTest(t, o, keys, dir, clk)
	for i, n := range nodes[:4] {
		if r := c.Submit([][]byte{line(t, report(o, keys, n, int64(i)))}, 1); r[0].Reason != Accepted {
			t.Fatal(r)
		}
	}
	c.Close() // abandoned: never closed
	c = openTest(t, o, keys, dir, clk)
	if p := c.Progress(); p.Reported != 4 || p.Expected != 6 {
		t.Fatalf("after restart %+v, want 4 of 6 reported", p)
	}
	if r := c.Submit([][]byte{line(t, report(o, keys, "n2", 2)), line(t, report(o, keys, "n4", 40))}, 1); r[0].Reason != Duplicate || r[1].Reason != Accepted {
		t.Fatalf("after restart: %+v", r)
	}
	rel, err := c.CloseEpoch("")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	want := map[string]int64{"n0": 0, "n1": 1, "n2": 2, "n3": 3, "n4": 40}
	if len(rel.Keys) != len(want) {
		t.Fatalf("release keys %v", rel.Keys)
	}
	for i, k := range rel.Keys {
		if want[k] != rel.Grid[i] {
			t.Errorf("%s: grid %d, want %d", k, rel.Grid[i], want[k])
		}
	}
	// Closed survives a restart: nothing is accepted after it.
	c = openTest(t, o, keys, dir, clk)
	defer c.Close()
	if r := c.Submit([][]byte{line(t, report(o, keys, "n5", 5))}, 1); r[0].Reason != Closed {
		t.Errorf("after a closed restart: %+v", r[0])
	}
	rel2, _ := c.CloseEpoch("")
	if rel2.Digest() != rel.Digest() {
		t.Error("closing again gave another release")
	}
}

// TestJournalTornTail: a last line cut short by a crash (never
// acknowledged) is cut off; a corrupt line inside is refused.
func TestJournalTornTail(t *testing.T) {
	nodes, keys := testKeys(3)
	o := testOrder(nodes)
	dir := t.TempDir()
	clk := &clock{t0}
	c := openTest(t, o, keys, dir, clk)
	c.Submit([][]byte{line(t, report(o, keys, "n0", 10))}, 1)
	c.Close()
	path := journalPath(dir, o.ReleaseID)
	torn := line(t, report(o, keys, "n1", 11))
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(torn[:len(torn)/2])
	f.Close()
	c = openTest(t, o, keys, dir, clk)
	if p := c.Progress(); p.Reported != 1 {
		t.Errorf("reported %d after a torn tail, want 1", p.Reported)
	}
	if r := c.Submit([][]byte{torn}, 1); r[0].Reason != Accepted {
		t.Errorf("the torn report sent again: %+v", r[0])
	}
	c.Close()
	// A complete line that is not a journal record: corruption.
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("garbage\n"))
	f.Close()
	_, err := OpenCollector(CollectorOptions{Order: o, OrderSHA256: orderSHA(o), MACKeys: keys, JournalDir: dir, Now: clk.now})
	var je *JournalError
	if !errors.As(err, &je) || errkind.Of(err) != errkind.BadInput {
		t.Errorf("corrupt journal: %v", err)
	}
}

// TestJournalOfAnotherOrder: a journal is bound to its order; a second
// collector on the same journal is busy; a stored report that no longer
// verifies (other MAC keys), or a version 1 one, is refused.
func TestJournalOfAnotherOrder(t *testing.T) {
	nodes, keys := testKeys(3)
	o := testOrder(nodes)
	dir := t.TempDir()
	clk := &clock{t0}
	c := openTest(t, o, keys, dir, clk)
	c.Submit([][]byte{line(t, report(o, keys, "n0", 10))}, 1)
	_, err := OpenCollector(CollectorOptions{Order: o, OrderSHA256: orderSHA(o), MACKeys: keys, JournalDir: dir, Now: clk.now})
	if errkind.Of(err) != errkind.Busy {
		t.Errorf("second collector: %v, want busy", err)
	}
	c.Close()
	changed := o
	changed.Tau = 2 // same release id, another order
	if _, err := OpenCollector(CollectorOptions{Order: changed, OrderSHA256: orderSHA(changed), MACKeys: keys, JournalDir: dir, Now: clk.now}); !errors.As(err, new(*JournalError)) {
		t.Errorf("journal of another order: %v", err)
	}
	_, other := testKeys(3)
	other["n0"] = []byte("another key")
	if _, err := OpenCollector(CollectorOptions{Order: o, OrderSHA256: orderSHA(o), MACKeys: other, JournalDir: dir, Now: clk.now}); !errors.As(err, new(*JournalError)) {
		t.Errorf("stored report under other keys: %v", err)
	}
	// A version 1 report in the journal (a collector before version 2
	// stored it) is refused with why and what to do, never restored as if
	// it named its order.
	v1 := report(o, keys, "n1", 11)
	v1.Version, v1.OrderSHA256 = 1, ""
	f, _ := os.OpenFile(journalPath(dir, o.ReleaseID), os.O_APPEND|os.O_WRONLY, 0)
	f.Write(append(line(t, v1), '\n'))
	f.Close()
	_, err = OpenCollector(CollectorOptions{Order: o, OrderSHA256: orderSHA(o), MACKeys: keys, JournalDir: dir, Now: clk.now})
	if !errors.As(err, new(*JournalError)) || !strings.Contains(err.Error(), "version 1 report") || !strings.Contains(err.Error(), "open a new epoch") {
		t.Errorf("a journal with a version 1 report: %v", err)
	}
}

// TestConcurrentSubmitsStoreOnce: many goroutines send the same nodes'
// reports (identical and conflicting) at once; each node is accepted
// exactly once, and the journal holds one line per node.
func TestConcurrentSubmitsStoreOnce(t *testing.T) {
	nodes, keys := testKeys(50)
	o := testOrder(nodes)
	dir := t.TempDir()
	c := openTest(t, o, keys, dir, &clock{t0})
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := map[string]int{}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var batch [][]byte
			for _, n := range nodes {
				batch = append(batch, line(t, report(o, keys, n, int64(w%2))))
			}
			for _, r := range c.Submit(batch, 1) {
				if r.Reason == Accepted {
					mu.Lock()
					accepted[r.Node]++
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	for _, n := range nodes {
		if accepted[n] != 1 {
			t.Errorf("%s accepted %d times", n, accepted[n])
		}
	}
	c.Close()
	data, _ := os.ReadFile(journalPath(dir, o.ReleaseID))
	if got := bytes.Count(data, []byte("\n")); got != len(nodes)+1 {
		t.Errorf("journal has %d lines, want %d", got, len(nodes)+1)
	}
}

// TestWriteReleaseNeverOverwrites: the release file is written once; the
// same release again is a no-op; another release there is refused.
func TestWriteReleaseNeverOverwrites(t *testing.T) {
	nodes, keys := testKeys(3)
	o := testOrder(nodes)
	c := openTest(t, o, keys, t.TempDir(), &clock{t0})
	defer c.Close()
	c.Submit([][]byte{line(t, report(o, keys, "n1", -5))}, 1)
	rel, _ := c.CloseEpoch("v")
	path := filepath.Join(t.TempDir(), "release.json")
	if w, err := WriteRelease(path, rel); err != nil || !w {
		t.Fatal(w, err)
	}
	if w, err := WriteRelease(path, rel); err != nil || w {
		t.Errorf("same release again: written %v, %v", w, err)
	}
	back, err := privacy.ReadReleaseFile(path)
	if err != nil || back.Digest() != rel.Digest() || back.Meta.SamplerVersion != 3 || !back.Meta.Keyed || fmt.Sprint(back.Meta.Missing) != "[n0 n2]" {
		t.Errorf("read back %+v, %v", back, err)
	}
	other := *rel
	other.Grid = []int64{6}
	other.Values = []float64{6.0 / (1 << 20)}
	if _, err := WriteRelease(path, &other); !errors.As(err, new(*ReleaseFileExistsError)) {
		t.Errorf("other values: %v", err)
	}
}

// TestSubmitReaderLineNumbers: results carry the report's line in the
// stream, blank lines counted, across batches; a line over the limit is
// refused oversized and the stream goes on.
func TestSubmitReaderLineNumbers(t *testing.T) {
	nodes, keys := testKeys(4)
	o := testOrder(nodes)
	c := openTest(t, o, keys, t.TempDir(), &clock{t0})
	defer c.Close()
	in := string(line(t, report(o, keys, "n0", 1))) + "\n\n  \n" + strings.Repeat("y", DefaultMaxLine+10) + "\n" +
		string(line(t, report(o, keys, "n1", 2))) + "\n\n" + string(line(t, report(o, keys, "n2", 3)))
	var got []Result
	if err := c.SubmitReader(strings.NewReader(in), 2, func(r []Result) error { got = append(got, r...); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		reason Reason
	}{{1, Accepted}, {4, Oversized}, {5, Accepted}, {7, Accepted}}
	if len(got) != len(want) {
		t.Fatalf("results %+v", got)
	}
	for i, w := range want {
		if got[i].Line != w.line || got[i].Reason != w.reason {
			t.Errorf("result %d: line %d %q, want line %d %q", i, got[i].Line, got[i].Reason, w.line, w.reason)
		}
	}
}
