package main

// serveHelp is the serve command's help text.
const serveHelp = `serve runs a scheduled job for users without a scheduler: at every slot of
--schedule (a cron specification such as "0 * * * *", a descriptor such as
@hourly, or "@every 1h"; UTC) it releases the latest readings of the
configured Neo4j projection (--values FILE, re-read at every slot, or
--value-property P) under the slot's epoch, then locates the source
communities on that release and writes them back — one run record per step,
both carrying the epoch. Everything a release guarantees holds: a slot run
twice (two servers, a restart) is one charge; a crashed run's epoch is
finished by the next run with the stored values.

Slots: a slot's epoch is its start in UTC (2026-11-22T10:00Z for an hourly
slot). Runs never overlap: a slot that comes while the previous run is
still going is skipped (logged, counted in /metrics); slots that pass while
serve is not running are not caught up. --jitter delays each run by a
random amount so many servers do not start at once.

Δ2 is computed once and reused while the graph is unchanged: the
certificate is kept in --sensitivity-cache (verified against the graph's
fingerprint, τ and this version at every slot; recomputed when the graph
changed).

When the scope's budget is exhausted the release is refused (logged, counted
in /metrics) and the slot locates on the last release that succeeded; so it
does, with nothing charged, when --refuse-at-chance finds the release's
verdict noise (at --source-mass, or with none at every mass up to 1000 units).

Shutdown (SIGTERM, SIGINT): no new run starts; the current run has --grace
to finish, after which it is stopped and recorded "interrupted". Exit 0.

/metrics (Prometheus), /healthz and the operator's page / (scope, budget
left, the last runs, the latest ranking with its picture; plain HTML) are
served on --listen, localhost by default; --listen "" turns them off.

/healthz: 200 while serve can work; 503 with the reasons when the database
does not answer a read within 3 s (checked at most every 5 s) or the last
--health-failed-slots slots failed (a refusal is no failure), and once
shutdown began (docs/scheduling.md).`
