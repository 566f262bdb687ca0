package service

import (
	"context"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/stores"
)

// Steps are a slot's steps as specs, and the backend they run against
// (the stores opened once for the life of the service). Each step copies its spec,
// names it with the step's run id and epoch, plans it against the stores
// (with the step's logger) and executes the plan: the release, then the
// localisation on that release, or the private answer alone.
type Steps struct {
	// Backend runs the steps: OnStores of the stores the caller opens
	// before the first slot and closes once the service has stopped.
	Backend Backend
	// Release is the slot's release; its RunID and Epoch are the step's.
	Release job.ReleaseSpec
	// Locate, when not nil, locates on the slot's release (or on the
	// scope's last release when the release was refused).
	Locate *job.LocateSpec
	// Answer, when not nil, is the slot's only step: the private answer.
	Answer *job.AnswerSpec
	// Readings reads the raw readings again at every slot (nil: the
	// configured value property is read with the graph).
	Readings func() (map[string]float64, error)
	// Communities are those of the localisation and of the answer.
	Communities stores.Communities
	// Progress returns the progress callback of a step ("Δ2",
	// "write-back"); nil: none.
	Progress func(step string) func(done, total int)
	// PassStarted and Say are job.Env's: the answer audit's estimate
	// before its pass, a resumed audit said (nil: neither).
	PassStarted func(g *laplacian.Graph, c recovery.PassCost)
	Say         func(line string)
	// Observer is told what the slots located and answered (nil: nobody).
	Observer Observer
}

// Observer is told the outcome of the slots' steps: the operator's page.
type Observer interface {
	// Draw draws a localisation's picture before its results are
	// published, and names it in sum.Plot.
	Draw(ctx context.Context, lr graphcloak.LocateRequest, res *graphcloak.LocateResult, sum *job.LocateSummary) error
	// Located is told a localisation of releaseRun that succeeded.
	Located(epoch, releaseRun string, sum *job.LocateSummary)
	// Answered is told every private answer, or why there was none.
	Answered(epoch, runID string, sum *job.AnswerSummary, err error)
}

// Slot returns s running these steps: the private answer alone, or the
// release and (with Locate) the localisation. Scope and NewRunID are set
// from the steps.
func (st *Steps) Slot(s Slot) *Slot {
	s.NewRunID = job.NewRunID
	if st.Answer != nil {
		s.Scope, s.Answer = st.Answer.Scope, st.answer
		return &s
	}
	s.Scope, s.Release, s.LastRelease = st.Release.Scope, st.release, st.lastRelease
	if st.Locate != nil {
		s.Locate = st.locate
	}
	return &s
}

// env is a step's job environment: its logger, the progress and one
// bookkeeping deadline for all it does after its work.
func (st *Steps) env(step Step, after *job.Bookkeeping) job.Env {
	return job.Env{Logger: step.Logger, Progress: st.Progress, PassStarted: st.PassStarted, Say: st.Say, Bookkeeping: after.Context}
}

// release releases the slot's readings under its epoch.
func (st *Steps) release(ctx context.Context, step Step) (*job.ReleaseSummary, error) {
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	var readings map[string]float64
	if st.Readings != nil {
		var err error
		if readings, err = st.Readings(); err != nil {
			return nil, err
		}
	}
	spec := st.Release
	spec.RunID, spec.Epoch = step.RunID, step.Epoch
	return st.Backend.Release(ctx, spec, readings, st.env(step, after))
}

// lastRelease returns the run id of the scope's newest succeeded
// release, or "" (logged) when there is none.
func (st *Steps) lastRelease(ctx context.Context, step Step) (string, error) {
	return st.Backend.LastRelease(ctx, step.Logger)
}

// locate locates on releaseRun, its record read again, and tells the
// observer the localisation.
func (st *Steps) locate(ctx context.Context, step Step, releaseRun string) (*job.LocateSummary, error) {
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	spec := *st.Locate
	spec.RunID = step.RunID
	env := st.env(step, after)
	if st.Observer != nil {
		env.Output = st.Observer.Draw
	}
	sum, err := st.Backend.Locate(ctx, releaseRun, spec, st.Communities, env)
	if err != nil {
		return nil, err
	}
	if st.Observer != nil {
		st.Observer.Located(step.Epoch, releaseRun, sum)
	}
	return sum, nil
}

// answer plans and executes the slot's private answer, and tells the
// observer how it ended.
func (st *Steps) answer(ctx context.Context, step Step) (*job.AnswerSummary, error) {
	sum, err := st.runAnswer(ctx, step)
	if st.Observer != nil {
		st.Observer.Answered(step.Epoch, step.RunID, sum, err)
	}
	return sum, err
}

// runAnswer answers with the slot's readings under its epoch.
func (st *Steps) runAnswer(ctx context.Context, step Step) (*job.AnswerSummary, error) {
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	spec := *st.Answer
	spec.RunID, spec.Epoch = step.RunID, step.Epoch
	return st.Backend.Answer(ctx, spec, st.Communities, st.Readings, st.env(step, after))
}
