package cancel

import (
	"context"
	"errors"
	"testing"
)

// TestRun: the result when fn finishes, ctx.Err() at once when ctx ends
// first (fn blocked until after Run returned), and fn not started on a
// context already done.
func TestRun(t *testing.T) {
	v, err := Run(context.Background(), func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("got %d, %v", v, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	release := make(chan struct{})
	started := make(chan struct{})
	go func() { <-started; stop() }()
	_, err = Run(ctx, func() (int, error) { close(started); <-release; return 1, nil })
	close(release)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	ran := false
	if _, err := Run(ctx, func() (int, error) { ran = true; return 0, nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("done context: err %v, ran %v", err, ran)
	}
}
