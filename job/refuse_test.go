package job_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"

	. "github.com/graphcloak/graphcloak/job"
)

// What a release refuses, and with which kind (exit code), before it
// charges: nothing is charged and no node written in any case.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(f *fixture, s *ReleaseSpec)
		kind  errkind.Kind
	}{
		{"write property is the node key", func(_ *fixture, s *ReleaseSpec) { s.WriteProperty = "roomId" }, errkind.BadInput},
		{"write property is the readings", func(_ *fixture, s *ReleaseSpec) { s.Projection.ValueProperty = "v" }, errkind.BadInput},
		{"another kind's property", func(f *fixture, _ *ReleaseSpec) { f.mem.Own("v", connector.KindMass) }, errkind.BadInput},
		{"run ids owned by another kind", func(f *fixture, _ *ReleaseSpec) { f.mem.Own("v_runId", connector.KindRank) }, errkind.BadInput},
		{"bad scope", func(_ *fixture, s *ReleaseSpec) { s.Scope = "a b\n" }, errkind.BadInput},
		{"ε ≤ 0", func(_ *fixture, s *ReleaseSpec) { s.Epsilon = 0 }, errkind.BadInput},
		{"budget exhausted", func(_ *fixture, s *ReleaseSpec) { s.Epsilon = 100 }, errkind.Budget},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.spec("r1")
			c.setup(f, &s)
			p, err := PlanRelease(context.Background(), s, f.env())
			if err == nil {
				_, err = Execute(context.Background(), p)
			}
			if errkind.Of(err) != c.kind {
				t.Fatalf("error %v (kind %v), want kind %v", err, errkind.Of(err), c.kind)
			}
			if f.mem.Charges() != 0 || len(f.mem.Node(f.graph.Key(0))) != 0 {
				t.Errorf("charged %d times, node %v", f.mem.Charges(), f.mem.Node(f.graph.Key(0)))
			}
		})
	}
}

// An epoch published to another write property is refused (exit 3); one
// whose values another run overwrote is charged and cannot be published
// again (exit 7). Neither charges again.
func TestRepublishRefusals(t *testing.T) {
	f := newFixture(t)
	if _, err := f.release("r1"); err != nil {
		t.Fatal(err)
	}
	s := f.spec("r2")
	s.WriteProperty = "w"
	p, err := PlanRelease(context.Background(), s, f.env())
	if err == nil {
		_, err = Execute(context.Background(), p)
	}
	if errkind.Of(err) != errkind.BadInput {
		t.Errorf("other property: %v (kind %v), want bad input", err, errkind.Of(err))
	}
	// Another epoch's run writes over r1's values: r1 is superseded.
	s = f.spec("r3")
	s.Epoch = "next"
	if p, err = PlanRelease(context.Background(), s, f.env()); err == nil {
		_, err = Execute(context.Background(), p)
	}
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.release("r4")
	if !errors.As(err, new(*ChargedError)) || errkind.Of(err) != errkind.Charged {
		t.Errorf("overwritten: %v (kind %v), want *ChargedError", err, errkind.Of(err))
	}
	if f.mem.Charges() != 2 {
		t.Errorf("%d charges, want 2 (two epochs)", f.mem.Charges())
	}
}

// liveStoredRun is a fixture whose run r1 stored its values and died
// with its lease still live.
func liveStoredRun(t *testing.T) *fixture {
	f := newFixture(t)
	f.mem.CrashAt, f.mem.Kill = 11, true // after "store values"
	if _, err := f.release("r1"); err == nil {
		t.Fatal("no crash")
	}
	f.mem.Restart()
	return f
}

// A run that finds the scope held by a live run waits for it, up to
// ReleaseSpec.Wait, then gives up (busy); once the holder published the epoch
// it is a no-op.
func TestWaitForLiveRun(t *testing.T) {
	f := liveStoredRun(t)
	s := f.spec("r2")
	s.Wait = 10 * time.Second // shorter than the lease
	p, err := PlanRelease(context.Background(), s, f.env())
	if err != nil || p.Step != Wait {
		t.Fatalf("plan %v, %v; want wait", p.Step, err)
	}
	_, err = Execute(context.Background(), p)
	if errkind.Of(err) != errkind.Busy {
		t.Fatalf("%v (kind %v), want busy", err, errkind.Of(err))
	}
	s.Wait = 2 * lease // long enough: the lease expires while waiting, r2 resumes r1
	if p, err = PlanRelease(context.Background(), s, f.env()); err != nil {
		t.Fatal(err)
	}
	sum, err := Execute(context.Background(), p)
	if err != nil || !sum.Resumed || f.mem.Charges() != 1 {
		t.Fatalf("%v, %+v, %d charges; want r1 resumed", err, sum, f.mem.Charges())
	}
}
