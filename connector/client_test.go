package connector

import (
	"testing"
	"time"
)

// The driver's retry window of a transaction ends inside the run's
// client-side deadline (TransactionTimeout + AcquisitionTimeout) whenever
// the run has a transaction timeout; without one the default holds.
func TestRetryTimeTiedToTransactionTimeout(t *testing.T) {
	s := time.Second
	cases := []struct {
		opt  Options
		want time.Duration
	}{
		{Options{}, 30 * s},
		{Options{MaxTransactionRetryTime: 5 * s}, 5 * s},
		{Options{TransactionTimeout: 2 * s}, 2 * s},
		{Options{TransactionTimeout: 2 * s, MaxTransactionRetryTime: 60 * s}, 2 * s},
		{Options{TransactionTimeout: 120 * s}, 30 * s},
		{Options{TransactionTimeout: 10 * s, MaxTransactionRetryTime: 1 * s}, 1 * s},
	}
	for _, c := range cases {
		got := retryTime(c.opt)
		if got != c.want {
			t.Errorf("%+v: %v, want %v", c.opt, got, c.want)
		}
		if c.opt.TransactionTimeout > 0 && got > c.opt.TransactionTimeout+c.opt.AcquisitionTimeout {
			t.Errorf("%+v: retries (%v) outlast the client-side deadline", c.opt, got)
		}
	}
}
