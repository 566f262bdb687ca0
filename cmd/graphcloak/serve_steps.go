package main

import (
	"context"
	"sync"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/service"
	"github.com/graphcloak/graphcloak/stores"
)

// checkServe checks the schedule and turns the job's flags into the
// specs of a slot's steps before anything runs: the release is checked as
// it will be made (its values file and key read), so a bad flag fails
// now, not at the first slot. Each slot names its steps' run ids and
// epoch.
func checkServe(opts *serveOptions) (schedule.Spec, *service.Steps, error) {
	if err := checkServeFlags(opts); err != nil {
		return schedule.Spec{}, nil, err
	}
	spec, err := schedule.Parse(opts.schedule)
	if err != nil {
		return schedule.Spec{}, nil, inputErrorf("--schedule: %w", err)
	}
	cache := stores.NewCommunityCache()
	header, _ := csvin.ParseHeader(opts.g.cfg.Input.Header) // validated by config
	steps := &service.Steps{Values: opts.values, Header: header, Progress: opts.g.progress}
	if opts.privateAnswer {
		ao := serveAnswerOptions(opts, cache)
		steps.Communities = locateCommunities(ao)
		steps.Answer, err = checkPrivateAnswer(ao)
		return spec, steps, err
	}
	lo := serveLocateOptions(opts, cache)
	steps.Communities = locateCommunities(lo)
	in, err := checkRelease(&releaseOptions{g: opts.g, graph: stores.Neo4jSpec, values: opts.values, lease: opts.lease, wait: opts.wait,
		sensitivityCache: opts.sensitivityCache, forecastTrials: opts.forecastTrials, sourceMass: opts.sourceMass})
	if err != nil {
		return schedule.Spec{}, nil, err
	}
	steps.Release = in.spec
	if !opts.noLocate {
		if steps.Locate, err = checkServeLocate(lo); err != nil {
			return schedule.Spec{}, nil, err
		}
	}
	return spec, steps, nil
}

// checkServeFlags checks serve's own flags.
func checkServeFlags(opts *serveOptions) error {
	switch {
	case opts.graph != stores.Neo4jSpec:
		return usageErrorf("serve needs --graph neo4j (runs, leases and history live in Neo4j), got %q", opts.graph)
	case opts.schedule == "":
		return usageErrorf(`--schedule is required (e.g. "@every 1h" or "0 * * * *")`)
	case opts.g.cfg.Privacy.Epoch != "":
		return usageErrorf("--epoch is not used by serve: each slot's epoch is its start time")
	case opts.values == "-":
		return usageErrorf("--values - cannot be re-read at every slot: give a file")
	case opts.maxRuns < 0:
		return inputErrorf("--max-runs must be ≥ 0, got %d", opts.maxRuns)
	case opts.jitter < 0 || opts.grace < 0:
		return inputErrorf("--jitter and --grace must be ≥ 0")
	}
	return nil
}

// serveLocateOptions are the localisation's flags of every slot,
// communities kept in cache between slots.
func serveLocateOptions(opts *serveOptions, cache *stores.CommunityCache) *locateOptions {
	return &locateOptions{g: opts.g, graph: stores.Neo4jSpec, communities: opts.communities, resolution: opts.resolution,
		plotValue: "posterior", communityCache: cache, forecastTrials: opts.forecastTrials, sourceMass: opts.sourceMass}
}

// serveAnswerOptions are the private answer's flags of every slot (no
// forecast), its communities and model kept in cache between slots.
func serveAnswerOptions(opts *serveOptions, cache *stores.CommunityCache) *locateOptions {
	return &locateOptions{g: opts.g, graph: stores.Neo4jSpec, communities: opts.communities, resolution: opts.resolution, communityCache: cache,
		privateAnswer: answerOptions{enabled: true, values: opts.values, cap: opts.answerCap,
			fitTolerance: opts.fitTolerance, onMismatch: opts.onMismatch, cache: opts.answerCache, memo: &cache.Answers}}
}

// checkServeLocate checks the localisation of every slot and makes its
// spec: on the slot's release run, whose record each slot reads.
func checkServeLocate(lo *locateOptions) (*job.LocateSpec, error) {
	if err := checkForecastTrials(lo.forecastTrials); err != nil {
		return nil, err
	}
	in := &locateInputs{isDB: true}
	in.commKind, in.commArg = stores.ParseCommunities(lo.communities)
	if err := checkCommunities(lo, in); err != nil {
		return nil, err
	}
	spec := locateSpec(lo, in, "")
	if err := spec.Check(); err != nil {
		return nil, err
	}
	return &spec, nil
}

// serveHealth is /healthz's verdict (service.Health): the database probed
// by databaseProbe, --health-failed-slots (0: never) failed slots in a
// row. close releases the probe's connection.
func serveHealth(opts *serveOptions) (*service.Health, func()) {
	probe := &databaseProbe{g: opts.g}
	failed := opts.healthFailedSlots
	if failed == 0 {
		failed = -1 // never
	}
	return &service.Health{FailedSlots: failed, Probe: probe.ping}, probe.close
}

// databaseProbe is /healthz's check of the database: one client, kept
// between checks (connected again after a failure to connect), and a read.
type databaseProbe struct {
	g      *globalOptions
	mu     sync.Mutex
	client *connector.Client
}

func (p *databaseProbe) ping(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client == nil {
		c, err := stores.Connect(ctx, &p.g.cfg.Config)
		if err != nil {
			return err
		}
		p.client = c
	}
	return p.client.Ping(ctx, p.g.cfg.Neo4j.Database)
}

func (p *databaseProbe) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil {
		_ = p.client.Close(context.Background())
		p.client = nil
	}
}
