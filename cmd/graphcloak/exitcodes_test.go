package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// Every error kind the libraries return reaches its documented exit code
// (docs/usage.md "Exit codes"), also when wrapped by a caller with %w.
func TestExitCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("unexpected"), exitFailure},
		{errkind.Usagef("unknown flag"), exitUsage},
		{errkind.Inputf("bad --x"), exitBadInput},
		{&config.Error{}, exitBadInput},
		{&privacy.BudgetError{}, exitBudgetExhausted},
		{&sensitivity.ParamError{}, exitBadInput},
		{&privacy.LedgerCorruptError{}, exitBadInput},
		{privacy.ErrNoLedger, exitBadInput},
		{privacy.ErrNoScope, exitBadInput},
		{privacy.ErrBadKeyFile, exitBadInput},
		{privacy.ErrAlreadyCharged, exitChargedEpoch},
		{&laplacian.SpecError{}, exitBadInput},
		{&laplacian.CSVError{}, exitBadInput},
		{laplacian.ErrEmptyGraph, exitBadInput},
		{laplacian.ErrBadWeight, exitBadInput},
		{&graphcloak.ParamError{}, exitBadInput},
		{&graphcloak.ValuesError{}, exitBadInput},
		{recovery.ErrUnknownEstimator, exitBadInput},
		{&community.MissingNodesError{}, exitBadInput},
		{&expm.ParamError{}, exitBadInput},
		{&forecast.ParamError{}, exitBadInput},
		{&connector.IdentifierError{}, exitBadInput},
		{&connector.UnreachableError{}, exitDBUnreachable},
		{&connector.AuthError{}, exitBadInput},
		{&connector.TimeoutError{}, exitDBUnreachable},
		{&connector.SchemaError{}, exitBadInput},
		{&connector.DataError{}, exitDBError},
		{&connector.QueryError{}, exitDBError},
		{&connector.RunStateError{}, exitChargedEpoch},
		{&connector.ScopeBusyError{}, exitBusy},
		{&connector.EpochPublishedError{}, exitBusy},
		{&job.ChargedError{Epoch: "E", Err: errors.New("lost")}, exitChargedEpoch},
		{fs.ErrNotExist, exitBadInput},
		// A command's bad-input wrapper keeps the kind of what it wraps.
		{errkind.Inputf("--graph: %w", &connector.TimeoutError{}), exitDBUnreachable},
		{errkind.Usagef("%w", &connector.UnreachableError{}), exitDBUnreachable},
		{context.Canceled, exitInterrupted},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%T %v) = %d, want %d", c.err, c.err, got, c.want)
		}
		if c.err == nil {
			continue
		}
		if got := exitCode(fmt.Errorf("context: %w", c.err)); got != c.want {
			t.Errorf("exitCode(wrapped %T) = %d, want %d", c.err, got, c.want)
		}
		// Naming the flag keeps the kind; only an unclassified error
		// becomes bad input.
		want := c.want
		if want == exitFailure {
			want = exitBadInput
		}
		if got := exitCode(flagError("--graph", c.err)); got != want {
			t.Errorf("exitCode(flagError(%T)) = %d, want %d", c.err, got, want)
		}
	}
}

// Exit codes and small contract points found by trying every
// command: unknown subcommands are usage errors, --key naming a directory
// is bad input, keygen --out - is refused (a key is never printed), the
// version is available as a command and a flag.
func TestCommandContract(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"experiment", "foo"}, exitUsage},
		{[]string{"config", "foo"}, exitUsage},
		{[]string{"unmask", "--key", dir, "--release", filepath.Join(dir, "r.json")}, exitBadInput},
		{[]string{"keygen", "--out", "-"}, exitUsage},
		{[]string{"version"}, exitOK},
		{[]string{"--version"}, exitOK},
	} {
		if _, code, err := runPrivacyCLI(t, tc.args...); code != tc.code {
			t.Errorf("%q: exit %d (%v), want %d", tc.args, code, err, tc.code)
		}
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`keygen --out - created a file named "-"`)
	}
	out, _, _ := runPrivacyCLI(t, "-o", "json", "version")
	var v struct {
		buildinfo.Version
		SchemaVersion int
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.SamplerVersion != privacy.SamplerVersion || v.SchemaVersion != 1 {
		t.Errorf("version JSON %q: %v", out, err)
	}
	help, _, _ := runPrivacyCLI(t, "keygen", "--help")
	if strings.Contains(help, "--noise-key") {
		t.Error("keygen --help names --noise-key, which does not exist")
	}
}
