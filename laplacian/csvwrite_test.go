package laplacian

import (
	"bytes"
	"strings"
	"testing"
)

// An edge list written by WriteCSV reads back to the same graph — the
// same fingerprint in key order — isolated nodes, awkward keys and
// non-unit weights included.
func TestWriteCSVReadsBackToTheSameGraph(t *testing.T) {
	in := "source,target,weight\n\" a, b\",c,2.5\nc,\"#d\",1\n\"say \"\"hi\"\"\",c,0.1\nlonely,\n"
	g, err := ReadCSV(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 5 || g.NumEdges() != 3 {
		t.Fatalf("read %d nodes, %d edges; want 5 (one isolated), 3", g.N(), g.NumEdges())
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, g); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(&b, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	want, _, _ := SortedByKey(g)
	got, _, _ := SortedByKey(back)
	if want.Fingerprint() != got.Fingerprint() {
		t.Errorf("fingerprint %v after the round trip, want %v:\n%s", got.Fingerprint(), want.Fingerprint(), b.String())
	}
}
