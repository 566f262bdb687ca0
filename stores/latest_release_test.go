package stores

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// asFlags renders a parameter as the command's flag of that name does
// ("release run": --release-run).
func asFlags(p errkind.Param) string { return "--" + strings.ReplaceAll(string(p), " ", "-") }

// A localisation on the latest release (locate --release-run latest),
// when the scope's newest release was superseded by another scope's
// (serve's) release to the same property, names that run and its scope. Before: "scope "building-8" has
// no succeeded release yet", though it had one, overwritten.
func TestLatestReleaseNamesSuperseder(t *testing.T) {
	by := &connector.RunRecord{RunID: "run-serve-1", Command: "release", Scope: "whisper", Epoch: "2026-11-26T10:00:00Z", Status: connector.StatusSucceeded}
	runs := []*connector.RunRecord{
		{RunID: "run-loc", Command: "locate", Scope: "building-8", Status: connector.StatusSucceeded},
		{RunID: "run-rel-2", Command: "release", Scope: "building-8", Epoch: "e2", Status: connector.StatusSuperseded, SupersededBy: "run-serve-1", WriteProperty: "graphcloak_value"},
		{RunID: "run-rel-1", Command: "release", Scope: "building-8", Epoch: "e1", Status: connector.StatusSuperseded, SupersededBy: "run-rel-2", WriteProperty: "graphcloak_value"},
	}
	read := func(id string) (*connector.RunRecord, error) {
		if id == by.RunID {
			return by, nil
		}
		return nil, errors.New("no such run")
	}
	_, err := latestReleaseOf(runs, "building-8", read)
	if err == nil {
		t.Fatal("no error without a succeeded release")
	}
	for _, want := range []string{"run-rel-2", "superseded by run run-serve-1", `scope "whisper"`, "--scope whisper --release-run latest", `"graphcloak_value"`} {
		if !strings.Contains(errkind.Render(err, asFlags), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if errkind.Of(err) != errkind.BadInput {
		t.Errorf("kind %v, want bad input", errkind.Of(err))
	}
	// A succeeded release is still found; none at all still says so.
	runs[1].Status = connector.StatusSucceeded
	if id, err := latestReleaseOf(runs, "building-8", read); err != nil || id != "run-rel-2" {
		t.Errorf("latest %q, %v; want run-rel-2", id, err)
	}
	if _, err := latestReleaseOf(runs[:1], "building-8", read); err == nil || !strings.Contains(err.Error(), "no succeeded release yet") {
		t.Errorf("no release: %v", err)
	}
}
