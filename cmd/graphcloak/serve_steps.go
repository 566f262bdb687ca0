package main

import (
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/service"
	"github.com/graphcloak/graphcloak/stores"
)

// checkServe checks the schedule and turns the job's flags into the
// specs of a slot's steps before anything runs (serveSteps).
func checkServe(opts *serveOptions) (schedule.Spec, *service.Steps, error) {
	if err := checkServeFlags(opts); err != nil {
		return schedule.Spec{}, nil, err
	}
	steps, err := serveSteps(opts)
	if err != nil {
		return schedule.Spec{}, nil, err
	}
	spec, err := service.ParseSchedule(opts.schedule)
	return spec, steps, err
}

// checkServeFlags checks serve's own flags.
func checkServeFlags(opts *serveOptions) error {
	switch {
	case opts.graph != stores.Neo4jSpec:
		return errkind.Usagef("serve needs %s (runs, leases and history live in Neo4j), got %q", graphNeo4j, opts.graph)
	case opts.schedule == "":
		return errkind.Usagef(`--schedule is required (e.g. "@every 1h" or "0 * * * *")`)
	case opts.g.cfg.Privacy.Epoch != "":
		return errkind.Usagef("--epoch is not used by serve: each slot's epoch is its start time")
	case opts.values == "-":
		return errkind.Usagef("--values - cannot be re-read at every slot: give a file")
	case opts.maxRuns < 0:
		return errkind.Inputf("--max-runs must be ≥ 0, got %d", opts.maxRuns)
	case opts.jitter < 0 || opts.grace < 0:
		return errkind.Inputf("--jitter and --grace must be ≥ 0")
	}
	return nil
}

// serveSteps makes the specs of a slot's steps from serve's flags, with
// no run id or epoch (each slot names them): the private answer, or the
// release and the localisation on it. They are checked as they will be
// run — the release's values file and keys, or the answer's keys, read — so
// a bad flag fails now, not at the first slot; the readings file is read
// again at every slot (inputfiles.ReadingsFrom).
func serveSteps(opts *serveOptions) (*service.Steps, error) {
	lo := serveLocateOptions(opts)
	steps := &service.Steps{Communities: locateCommunities(lo), Progress: opts.g.progress, PassStarted: opts.g.passStarted, Say: opts.g.say}
	var err error
	if opts.privateAnswer {
		steps.Answer, err = answerSpecWithKeys(lo)
	} else {
		steps.Release, steps.Locate, err = checkServeRelease(opts, lo)
	}
	if err != nil {
		return nil, err
	}
	steps.Readings = inputfiles.ReadingsFrom(nil, opts.values, opts.g.cfg.Input.Header)
	if opts.privateAnswer { // broken readings are outside the answer's model, never named
		steps.Readings = inputfiles.AnswerReadingsFrom(nil, opts.values, opts.g.cfg.Input.Header)
	}
	return steps, nil
}

// serveLocateOptions are the flags of every slot's localisation, or of
// its private answer (which forecasts nothing), the communities and the
// answer model kept between slots.
func serveLocateOptions(opts *serveOptions) *locateOptions {
	cache := &stores.CommunityCache{}
	lo := &locateOptions{g: opts.g, graph: stores.Neo4jSpec, communities: opts.communities, resolution: opts.resolution, communityCache: cache}
	if opts.privateAnswer {
		lo.privateAnswer = answerOptions{enabled: true, values: opts.values, cap: opts.answerCap,
			fitTolerance: opts.fitTolerance, model: opts.model, onMismatch: opts.onMismatch, cache: opts.answerCache, cacheDir: opts.cacheDir, memo: &cache.Answers}
		return lo
	}
	lo.plotValue, lo.forecastTrials, lo.sourceMass = "posterior", opts.forecastTrials, opts.sourceMass
	return lo
}

// checkServeRelease makes the specs of every slot's release and, unless
// --no-locate, of its localisation (on the slot's release run, whose
// record each slot reads; its verdict's forecast kept in the work store,
// --cache-dir, so a slot whose release carries a mass an earlier slot's
// did reads it).
func checkServeRelease(opts *serveOptions, lo *locateOptions) (job.ReleaseSpec, *job.LocateSpec, error) {
	var locate *job.LocateSpec
	if !opts.noLocate {
		if err := checkForecastTrials(lo.forecastTrials); err != nil {
			return job.ReleaseSpec{}, nil, err
		}
		in := newLocateInputs(lo.graph, lo.communities)
		if err := checkCommunities(lo, in); err != nil {
			return job.ReleaseSpec{}, nil, err
		}
		spec := locateSpec(lo, in, "")
		var err error
		if spec.Store, err = workStore(opts.g, opts.cacheDir); err != nil { // every slot's verdict forecast kept there, as plain locate's
			return job.ReleaseSpec{}, nil, err
		}
		locate = &spec
	}
	in, err := checkRelease(&releaseOptions{g: opts.g, graph: stores.Neo4jSpec, values: opts.values, lease: opts.lease, wait: opts.wait,
		sensitivityCache: opts.sensitivityCache, cacheDir: opts.cacheDir, forecastTrials: opts.forecastTrials, sourceMass: opts.sourceMass})
	if err != nil {
		return job.ReleaseSpec{}, nil, err
	}
	if locate != nil {
		if err := locate.Check(); err != nil {
			return job.ReleaseSpec{}, nil, err
		}
	}
	return in.spec, locate, nil
}

// serveHealth is /healthz's verdict (service.Health): the configured
// database probed through st (the process's one Neo4j driver, which
// reconnects by itself), --health-failed-slots (0: never) failed slots in
// a row.
func serveHealth(opts *serveOptions, st *stores.Stores) *service.Health {
	failed := opts.healthFailedSlots
	if failed == 0 {
		failed = -1 // never
	}
	return &service.Health{FailedSlots: failed, Probe: st.Ping}
}
