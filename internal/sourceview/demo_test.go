package sourceview

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/demo"
)

// A demo's picture is drawn where asked, titled with its graph and
// captioned with the release's parameters.
func TestDemo(t *testing.T) {
	run, err := demo.Run(context.Background(), demo.Spec{Graph: "karate", Source: "34", Tau: 1, Epsilon: 8, Delta: 1e-5, Epoch: "e1"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.svg")
	if err := Demo(path, run); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "karate: where is the source?", "ε = 8, δ = 1e-05, τ = 1"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("picture lacks %q", want)
		}
	}
}
