// Package cancel runs computations that have no cancellation points of
// their own so that the caller can still stop at once.
package cancel

import "context"

// Run runs fn in a goroutine and returns its result, or ctx.Err() as soon
// as ctx is done (fn's result is then dropped; it runs to its end in the
// background, so use this where the process is about to exit or fn is
// cheap to abandon).
func Run[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}
