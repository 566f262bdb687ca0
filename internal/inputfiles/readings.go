package inputfiles

import (
	"io"
	"os"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
)

// ReadReadings reads a raw readings CSV (node,value) from the file path
// or, for "-", from stdin.
func ReadReadings(stdin io.Reader, path string, header csvin.Header) (map[string]float64, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, errkind.Inputf("%s: %w", ParamValues, err)
		}
		defer f.Close()
		r = f
	}
	if header == csvin.HeaderAuto {
		return graphcloak.ReadValues(r)
	}
	return graphcloak.ReadValuesHeader(r, header == csvin.HeaderYes)
}
