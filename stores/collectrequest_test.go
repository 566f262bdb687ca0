package stores

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// CollectRequest.Check needs the four files, reports or a close, and no
// graph but Neo4j's, each refusal a usage error naming its parameters.
func TestCollectRequestCheck(t *testing.T) {
	files := local.CollectorFiles{Order: "o.json", CoordinatorKey: "c.key.pub", MACKeys: "mac.csv", Journal: "j"}
	name := func(p errkind.Param) string {
		return map[errkind.Param]string{"epoch order": "--order", "coordinator key": "--coordinator-key"}[p] + flagOrEmpty(p)
	}
	for _, c := range []struct {
		name string
		req  CollectRequest
		text string
	}{
		{"reports", CollectRequest{Files: files, ReportsFrom: "-"}, ""},
		{"a close", CollectRequest{Files: files, Close: true, Graph: Neo4jSpec}, ""},
		{"no journal", CollectRequest{Files: local.CollectorFiles{Order: "o.json", CoordinatorKey: "c", MACKeys: "m"}, Close: true},
			"collect needs --order FILE, --coordinator-key FILE.pub, --mac-keys FILE and --journal DIR"},
		{"nothing to do", CollectRequest{Files: files}, "give --reports FILE|- (reports to collect), --close (close the epoch), or both"},
		{"another graph", CollectRequest{Files: files, Close: true, Graph: "karate"}, `--graph is neo4j or not given (the release file only), got "karate"`},
	} {
		err := c.req.Check()
		if c.text == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		} else if errkind.Of(err) != errkind.Usage || !strings.Contains(errkind.Render(err, name), c.text) {
			t.Errorf("%s: %v, want usage naming %q", c.name, err, c.text)
		}
	}
}

// flagOrEmpty is "--" + p for the parameters named by their flag.
func flagOrEmpty(p errkind.Param) string {
	if strings.Contains(string(p), " ") {
		return ""
	}
	return flagOf(p)
}

// Collect reads ReportsFrom ("-": Stdin), refuses one it cannot open
// (bad input naming the reports) before the journal is made, and its
// summary's Err is nil while every report is stored and a bad-input
// refusal counting the refused ones when not.
func TestCollectReadsReportsFrom(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := &config.Loaded{}
	cfg.Privacy.Ledger, cfg.Privacy.Scope = filepath.Join(dir, "ledger.json"), "building-7"
	st, err := Open(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.LedgerReport(ctx, &privacy.Budget{Epsilon: 10, Delta: 1e-5}, cfg.Privacy.Scope); err != nil {
		t.Fatal(err)
	}
	if st, err = Open(ctx, cfg, Options{Ledger: ReadWrite}); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "coord.key")
	if _, err := sensor.CreateSigningKeyFile(keyFile); err != nil {
		t.Fatal(err)
	}
	signer, err := sensor.LoadSigningKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	req := EpochRequest{Spec: job.ReleaseSpec{Graph: "karate", Scope: cfg.Privacy.Scope, Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-6},
		Epoch: "e1", NotBefore: now.Add(-time.Minute), NotAfter: now.Add(time.Hour), Out: filepath.Join(dir, "order.json"), Signer: signer}
	if _, err := st.OpenEpoch(ctx, req, job.Env{}); err != nil {
		t.Fatal(err)
	}
	var master privacy.Key
	master[0] = 7
	macs := filepath.Join(dir, "mac.csv")
	if _, err := local.Provision(local.ProvisionRequest{Master: master, Nodes: []string{"1", "2"}, MACCSV: macs, Now: now}); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "journal")
	files := local.CollectorFiles{Order: req.Out, CoordinatorKey: keyFile + ".pub", MACKeys: macs, Journal: journal}

	_, err = st.Collect(CollectRequest{Files: files, ReportsFrom: filepath.Join(dir, "missing.jsonl")})
	if errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(errkind.Render(err, flagOf), "--reports: ") {
		t.Errorf("missing reports: %v", err)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("refused reports, yet the journal was made: %v", err)
	}
	sum, err := st.Collect(CollectRequest{Files: files, ReportsFrom: "-", Stdin: strings.NewReader("")})
	if err != nil || sum.Received != 0 || sum.Err() != nil {
		t.Fatalf("no reports: %+v, %v, %v", sum, err, sum.Err())
	}
	sum, err = st.Collect(CollectRequest{Files: files, ReportsFrom: "-", Stdin: strings.NewReader("{\"hello\":1}\nnot json\n")})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Received != 2 || sum.Accepted != 0 || sum.AllStored {
		t.Errorf("two refused reports: %+v", sum)
	}
	if e := sum.Err(); errkind.Of(e) != errkind.BadInput || e.Error() != "collect: 2 of 2 reports refused (the accepted ones are stored)" {
		t.Errorf("Err = %v", e)
	}
}
