package stores

import (
	"io"
	"os"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/internal/csvin"
)

// ReadReadings reads a raw readings CSV (node,value) from the file path
// or, for "-", from stdin.
func ReadReadings(stdin io.Reader, path string, header csvin.Header) (map[string]float64, error) {
	if path == "-" {
		return graphcloak.ReadValuesHeader(stdin, header)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, inputErrorf("%s: %w", ParamValues, err)
	}
	defer f.Close()
	return graphcloak.ReadValuesHeader(f, header)
}
