package progressbar

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSensitivityOnTerminalOffATerminal: a buffer and a regular file are
// no terminal, so no redrawn line is made for them.
func TestSensitivityOnTerminalOffATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if SensitivityOnTerminal(&bytes.Buffer{}) != nil || SensitivityOnTerminal(f) != nil {
		t.Error("a status line for something that is not a terminal")
	}
}
