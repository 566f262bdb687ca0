package inputfiles

import (
	"fmt"

	"github.com/graphcloak/graphcloak/errkind"
)

// GivenPath is a path a job was given, as given (Name: "--ledger PATH"),
// and how the job uses it.
type GivenPath struct {
	Name, Path string
	Use        PathUse
}

// CheckPaths checks every given path against its use (CheckPath) before
// anything runs: the files read first, then those kept, then the
// outputs, then the directories made, each group in the order given, so
// that the first refusal — bad input naming the path as given — is of
// the input the job would have read first.
func CheckPaths(given []GivenPath) error {
	for _, pass := range []PathUse{ReadPath, KeptPath, WritePath, DirPath} {
		for _, g := range given {
			if g.Use != pass {
				continue
			}
			if err := CheckPath(g.Path, g.Use); err != nil {
				return errkind.Input(fmt.Errorf("%s: %w", g.Name, err))
			}
		}
	}
	return nil
}
