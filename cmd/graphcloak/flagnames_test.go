package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/job"
)

// TestFlagNames: a library error names parameters; the command's message
// names the flags a user types, through any wrapping, and -o json's
// message is the same sentence.
func TestFlagNames(t *testing.T) {
	if graphcloak.ParamTau != job.ParamTau {
		t.Fatalf("graphcloak.ParamTau %q and job.ParamTau %q differ: flagNames lists only job's", graphcloak.ParamTau, job.ParamTau)
	}
	err := fmt.Errorf("release: %w", &job.ChargedError{Epoch: "e1", Err: errors.New("the values were not stored")})
	if lib := err.Error(); strings.Contains(lib, "--") || !strings.Contains(lib, "new epoch") {
		t.Errorf("library text %q names a flag or not the parameter", lib)
	}
	if msg := errorMessage(err); !strings.Contains(msg, "release under a new --epoch") {
		t.Errorf("errorMessage = %q, want it to name --epoch", msg)
	}
	for p, f := range flagNames {
		if f == "" || f == string(p) {
			t.Errorf("flagNames[%q] = %q: not a name a user types", p, f)
		}
	}
}
