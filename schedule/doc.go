// Package schedule runs a function on a schedule: a cron specification or
// "@every D", in UTC, parsed and fired by github.com/robfig/cron/v3.
//
// Slots. Every firing belongs to a slot, the start of the period that
// contains it: the minute of a cron specification, the period D of
// "@every D" (aligned to multiples of D since the zero time, so every
// process, and every retry, names the same slot). A slot's epoch name
// (EpochName) is what a scheduled release charges the privacy ledger
// under, so a second run of the same slot is the same epoch and
// publishes nothing new.
//
// Runner fires the function (a SlotFunc) at each slot, after a random jitter, never two at
// once: a slot that fires while the previous run is still going is
// skipped (and reported), and slots that passed while the process was not
// running are not caught up — the next slot runs. On shutdown no new run
// starts; the current one gets a grace period to finish, then its context
// is cancelled, which a graphcloak run records as "interrupted".
package schedule
