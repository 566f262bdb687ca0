package community

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// workersFor returns the number of goroutines to use for concurrency c:
// c itself (GOMAXPROCS when c ≤ 0), never more than GOMAXPROCS, since more
// goroutines than cores only add scratch memory. Results never depend on
// it: every parallel step below writes disjoint outputs or combines
// partial results in a fixed order.
func workersFor(c int) int {
	p := runtime.GOMAXPROCS(0)
	if c <= 0 || c > p {
		return p
	}
	return c
}

// forEach calls fn(w, i) for every i in 0..n−1 on up to workers
// goroutines; w in 0..workers−1 names the goroutine, so fn can use
// per-worker scratch. Items are handed out in blocks of grain.
func forEach(workers, n, grain int, fn func(w, i int)) {
	forBlocks(workers, n, grain, func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(w, i)
		}
	})
}

// forBlocks calls fn(w, lo, hi) for consecutive blocks [lo, hi) of at most
// grain items covering 0..n−1, on up to workers goroutines.
func forBlocks(workers, n, grain int, fn func(w, lo, hi int)) {
	if grain < 1 {
		grain = 1
	}
	blocks := (n + grain - 1) / grain
	if workers <= 1 || blocks <= 1 {
		for lo := 0; lo < n; lo += grain {
			fn(0, lo, min(lo+grain, n))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(workers, blocks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				lo := b * grain
				fn(w, lo, min(lo+grain, n))
			}
		}()
	}
	wg.Wait()
}
