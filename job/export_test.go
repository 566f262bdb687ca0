package job

import (
	"context"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/privacy"
)

// What the external tests (package job_test, which run against
// jobtest.Memory) reach inside package job.
var (
	PollInterval      = pollInterval
	RecordFailure     = recordFailure
	JudgeRelease      = judgeRelease
	SetExactNodeCurve = setExactNodeCurve
)

// StartStep, DrawStep, PublishStep and StoreStep are Execute's steps, one
// at a time, for the tests that interleave two runs.
func (p *ReleasePlan) StartStep(ctx context.Context) (Run, error) { return p.start(ctx) }

func (p *ReleasePlan) DrawStep(ctx context.Context) (*privacy.Released, error) { return p.draw(ctx) }

func (p *ReleasePlan) PublishStep(ctx context.Context, run Run, rel *privacy.Released) error {
	return p.publish(ctx, run, rel)
}

func (p *ReleasePlan) StoreStep(ctx context.Context, run Run, rel *privacy.Released) (connector.WriteStats, error) {
	return p.store(ctx, run, rel)
}
