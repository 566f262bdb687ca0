package progressbar

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/graphcloak/graphcloak/sensitivity"
)

// SensitivityOnTerminal is Sensitivity drawing on w when w is a terminal,
// else nil: on a pipe the caller prints its estimate and progress lines
// instead of a redrawn line.
func SensitivityOnTerminal(w io.Writer) func(sensitivity.Interim) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return Sensitivity(f)
}
