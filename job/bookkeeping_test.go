package job_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/job/jobtest"
	"github.com/graphcloak/graphcloak/privacy"

	. "github.com/graphcloak/graphcloak/job"
)

// bookkeepingSpy is a jobtest.Memory whose runs fail their last step by
// cancelling the run's context (a signal, a server gone), and which
// notes the context each deferred step — the failure record, the
// balance — was given.
type bookkeepingSpy struct {
	*jobtest.Memory
	cancel  context.CancelFunc
	failCtx context.Context
	balance []context.Context
}

type spyRun struct {
	Run
	spy *bookkeepingSpy
}

func (r spyRun) Succeed(context.Context) error {
	r.spy.cancel()
	return context.Canceled
}

func (r spyRun) Fail(ctx context.Context, cause error) error {
	r.spy.failCtx = ctx
	return r.Run.Fail(ctx, cause)
}

func (s *bookkeepingSpy) StartRun(ctx context.Context, rec connector.RunRecord, lease time.Duration) (Run, error) {
	r, err := s.Memory.StartRun(ctx, rec, lease)
	if err != nil {
		return nil, err
	}
	return spyRun{Run: r, spy: s}, nil
}

func (s *bookkeepingSpy) Balance(ctx context.Context, scope string) ([]privacy.Balance, error) {
	if ctx.Err() != nil || ctx.Value(bookkeepingKey{}) != nil {
		s.balance = append(s.balance, ctx)
	}
	return s.Memory.Balance(ctx, scope)
}

type bookkeepingKey struct{}

// A failed run exits within its timeouts: after a run fails with its context
// cancelled, everything deferred — recording the failure on the run,
// reading the balance — runs under the one context Env.Bookkeeping
// gives, never the run's cancelled context nor one without a deadline.
func TestBookkeepingSharesOneDeadline(t *testing.T) {
	for name, run := range map[string]func(f *fixture, ctx context.Context, env Env) error{
		"release": func(f *fixture, ctx context.Context, env Env) error {
			p, err := PlanRelease(ctx, f.spec("r1"), env)
			if err == nil {
				_, err = Execute(ctx, p)
			}
			return err
		},
		"locate": func(f *fixture, ctx context.Context, env Env) error {
			lenv := f.locateEnv(f.graph)
			lenv.Backend, lenv.Bookkeeping = env.Backend, env.Bookkeeping
			p, err := PlanLocate(ctx, f.locateSpec("l1"), lenv)
			if err == nil {
				_, err = ExecuteLocate(ctx, p)
			}
			return err
		},
		"answer": func(f *fixture, ctx context.Context, env Env) error {
			aenv := f.answerEnv()
			aenv.Backend, aenv.Ledger, aenv.Bookkeeping = env.Backend, env.Ledger, env.Bookkeeping
			p, err := PlanAnswer(ctx, f.answerSpec("a1"), aenv)
			if err == nil {
				_, err = ExecuteAnswer(ctx, p)
			}
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			switch name {
			case "locate":
				f = locateFixture(t)
			case "answer":
				f = answerFixture(t, 10)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			spy := &bookkeepingSpy{Memory: f.mem, cancel: cancel}
			book, endBook := context.WithTimeout(context.WithValue(context.Background(), bookkeepingKey{}, true), time.Hour)
			defer endBook()
			env := f.env()
			env.Backend, env.Ledger, env.Bookkeeping = spy, spy, func() context.Context { return book }
			if err := run(f, ctx, env); !errors.Is(err, context.Canceled) {
				t.Fatalf("%v, want the cancelled run's error", err)
			}
			if spy.failCtx != book {
				t.Errorf("the failure was recorded under %v, not the bookkeeping context", spy.failCtx)
			}
			for _, c := range spy.balance {
				if c != book {
					t.Errorf("the balance was read under %v after the run, not the bookkeeping context", c)
				}
			}
			if name != "locate" && len(spy.balance) == 0 {
				t.Error("no balance read after the run")
			}
		})
	}
}
