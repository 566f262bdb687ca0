package stores

import (
	"io"
	"path/filepath"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
	"time"
)

// ParamReports names the reports a collector is given.
const ParamReports errkind.Param = "reports"

// CollectRequest is a batch of an epoch's reports for its collector.
type CollectRequest struct {
	// Files are the order, the keys and the journal.
	Files local.CollectorFiles
	// Reports (JSON Lines; nil: none) are submitted, each result passed
	// to Each (nil: kept in Collected.Results); ReportsFrom, when given,
	// is the file they are read from ("-": Stdin).
	Reports     io.Reader
	ReportsFrom string
	Stdin       io.Reader
	Each        func(local.Result)
	// Close closes the epoch after the reports; it is closed too once
	// closed before or its window has ended. Out is the release file
	// ("": Journal/<releaseId>.release.json).
	Close bool
	Out   string
	// Graph is Neo4jSpec when the closed epoch is to be published too
	// (Collected.Publish; "": the release file only).
	Graph string
}

// Collected is what a batch did to the epoch: collect prints it.
type Collected struct {
	ReleaseID string         `json:"releaseId"`
	Scope     string         `json:"scope"`
	Epoch     string         `json:"epoch"`
	Journal   string         `json:"journal"`
	Received  int            `json:"received"`
	Accepted  int            `json:"accepted"`
	Refused   map[string]int `json:"refused"`
	Results   []local.Result `json:"results"`
	Expected  int            `json:"expected"`
	Reported  int            `json:"reported"`
	Closed    bool           `json:"closed"`
	Release   string         `json:"release,omitempty"`
	RunID     string         `json:"runId,omitempty"`
	Missing   []string       `json:"missing,omitempty"`
	// MissingFraction is the share of the order's sensors that have not
	// reported, and MissingNote what that does to the release and the plan
	// that forecasts it (local.MissingNote; "" when every sensor reported).
	MissingFraction float64   `json:"missingFraction"`
	MissingNote     string    `json:"missingNote,omitempty"`
	NotAfter        time.Time `json:"notAfter"`
	// AllStored: every report submitted is stored (accepted now, or a
	// duplicate of a stored one). Released is the closed epoch's release
	// (nil: still open), to publish (PublishCollected).
	AllStored bool              `json:"-"`
	Released  *privacy.Released `json:"-"`
}

// Collect opens the epoch's collector on its journal, submits the
// reports, and closes the epoch into its release file when asked or due.
// It needs nothing opened: a collector's stores are its files.
func (s *Stores) Collect(req CollectRequest) (*Collected, error) {
	reports, closeReports, err := req.openReports()
	if err != nil {
		return nil, err
	}
	defer closeReports()
	req.Reports = reports
	c, _, err := local.OpenCollectorFiles(req.Files)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	order := c.Order()
	sum := &Collected{ReleaseID: order.ReleaseID, Scope: order.Scope, Epoch: order.Epoch, Journal: req.Files.Journal,
		Refused: map[string]int{}, Results: []local.Result{}, NotAfter: order.NotAfter, AllStored: true}
	if req.Reports != nil {
		if err := submit(c, req, sum); err != nil {
			return nil, err
		}
	}
	now := time.Now
	if req.Files.Now != nil {
		now = req.Files.Now
	}
	if req.Close || c.Closed() || c.DueToClose(now()) {
		if err := closeCollected(c, req, sum); err != nil {
			return nil, err
		}
	}
	p := c.Progress()
	sum.Expected, sum.Reported, sum.Closed = p.Expected, p.Reported, p.Closed
	if p.Expected > 0 {
		sum.MissingFraction = float64(p.Expected-p.Reported) / float64(p.Expected)
	}
	if p.Closed {
		sum.MissingNote = local.MissingNote(c.Order(), p)
	}
	return sum, nil
}

// submit submits req's reports to c, counting them in sum.
func submit(c *local.Collector, req CollectRequest, sum *Collected) error {
	err := c.SubmitReader(req.Reports, 4096, func(res []local.Result) error {
		for _, r := range res {
			sum.Received++
			if r.Reason == local.Accepted {
				sum.Accepted++
			} else {
				sum.Refused[string(r.Reason)]++
			}
			sum.AllStored = sum.AllStored && r.Reason.Stored()
			if req.Each != nil {
				req.Each(r)
			} else {
				sum.Results = append(sum.Results, r)
			}
		}
		return nil
	})
	if err != nil {
		return errkind.Inputf("%s: %w", ParamReports, err)
	}
	return nil
}

// closeCollected closes c's epoch and writes its release file.
func closeCollected(c *local.Collector, req CollectRequest, sum *Collected) error {
	rel, err := c.CloseEpoch(buildinfo.Read().String())
	if err != nil {
		return err
	}
	path := req.Out
	if path == "" {
		path = filepath.Join(req.Files.Journal, sum.ReleaseID+".release.json")
	}
	if _, err := local.WriteRelease(path, rel); err != nil {
		return err
	}
	sum.Release, sum.Missing, sum.Released = path, rel.Meta.Missing, rel
	return nil
}
