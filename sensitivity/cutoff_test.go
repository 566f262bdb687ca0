package sensitivity

import (
	"errors"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// A library caller's cancellation (Options.Done) stops the sparse schemes
// inside their refinement loops: Done is closed at the first Status
// report (after the cheap bounds, before any column block or Lanczos
// recurrence), and then no column block runs (no Progress call) and the
// Lanczos workers take no class (every edge is left uncertified in the
// last report); Graph returns ErrStopped. Without the cancellation points
// the whole refinement runs first.
func TestDoneStopsSparseSchemes(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=400,m=3,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []Scheme{SchemeColumns, SchemeLanczos} {
		done := make(chan struct{})
		var once sync.Once
		var mu sync.Mutex
		progress, statuses := 0, 0
		var last Interim
		opt := Options{Method: expm.Sparse, Scheme: scheme, Done: done,
			Status: func(s Interim) {
				mu.Lock()
				defer mu.Unlock()
				statuses++
				last = s
				once.Do(func() { close(done) })
			},
			Progress: func(int, int) {
				mu.Lock()
				defer mu.Unlock()
				if scheme == SchemeColumns {
					progress++
				}
			}}
		_, err := Graph(g, 1, 1, opt)
		if !errors.Is(err, ErrStopped) {
			t.Fatalf("scheme %v: err = %v, want ErrStopped", scheme, err)
		}
		if progress != 0 {
			t.Errorf("scheme %v: %d column blocks ran after the cancellation", scheme, progress)
		}
		if scheme == SchemeLanczos && statuses > 0 && last.EdgesCertified == last.Edges {
			t.Errorf("scheme %v: every edge certified after the cancellation (%d reports)", scheme, statuses)
		}
	}
}
