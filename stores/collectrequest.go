package stores

import (
	"context"
	"io"
	"os"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/sensorfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
)

// Parameters a collector's request names (errkind.Param) besides
// sensorfiles' and local's.
const (
	ParamMACKeys errkind.Param = "mac-keys"
	ParamClose   errkind.Param = "close"
)

// Check refuses a request a collector cannot serve, before any file is
// read: the order, its key, the MAC keys and the journal are needed, and
// reports, a close or both; Graph is Neo4jSpec (publish too) or "".
func (r CollectRequest) Check() error {
	f := r.Files
	switch {
	case f.Order == "" || f.CoordinatorKey == "" || f.MACKeys == "" || f.Journal == "":
		return errkind.Usagef("collect needs %s FILE, %s FILE.pub, %s FILE and %s DIR", sensorfiles.ParamOrder, sensorfiles.ParamCoordinatorKey, ParamMACKeys, local.ParamJournal)
	case r.ReportsFrom == "" && r.Reports == nil && !r.Close:
		return errkind.Usagef("give %s FILE|- (reports to collect), %s (close the epoch), or both", ParamReports, ParamClose)
	case r.Graph != "" && r.Graph != Neo4jSpec:
		return errkind.Usagef("%s is %s or not given (the release file only), got %q", job.ParamGraph, Neo4jSpec, r.Graph)
	}
	return nil
}

// openReports opens r.ReportsFrom: a file, or "-" for r.Stdin (nil:
// r.Reports as given).
func (r CollectRequest) openReports() (io.Reader, func(), error) {
	switch r.ReportsFrom {
	case "":
		return r.Reports, func() {}, nil
	case "-":
		return r.Stdin, func() {}, nil
	}
	f, err := os.Open(r.ReportsFrom)
	if err != nil {
		return nil, nil, errkind.Inputf("%s: %w", ParamReports, err)
	}
	return f, func() { f.Close() }, nil
}

// Err is the refusal of a batch of which a report was refused (bad
// input; the accepted ones are stored), nil when every report is stored.
func (s *Collected) Err() error {
	if s.AllStored {
		return nil
	}
	return errkind.Inputf("collect: %d of %d reports refused (the accepted ones are stored)", s.Received-s.Accepted-s.Refused[string(local.Duplicate)], s.Received)
}

// Publish writes the closed epoch's release (Released) to the configured
// projection (Stores.PublishCollected) on stores opened for it alone with
// opts (connected, the projection checked) and closed after, within the
// bookkeeping deadline, and records its run id (RunID).
func (s *Collected) Publish(ctx context.Context, cfg *config.Loaded, opts Options, env job.Env) error {
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	opts.Neo4j, opts.CheckProjection, opts.Bookkeeping = true, true, after.Context
	st, err := Open(ctx, cfg, opts)
	if err != nil {
		return err
	}
	defer st.Close(after.Context())
	env.Bookkeeping = after.Context
	s.RunID, err = st.PublishCollected(ctx, s.Released, env)
	return err
}
