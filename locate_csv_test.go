package graphcloak

import (
	"bytes"
	"testing"
)

func TestWriteNodesCSV(t *testing.T) {
	var b bytes.Buffer
	nodes := []NodeResult{{Key: "a", Mass: 0.5, Weight: 0.25, Community: "c1", Probability: 0.75, Rank: 1}}
	if err := WriteNodesCSV(&b, nodes); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "key,mass,weight,community,probability,rank\na,0.5,0.25,c1,0.75,1\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
