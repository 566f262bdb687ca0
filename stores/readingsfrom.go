package stores

import (
	"io"

	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
)

// ReadingsFrom reads the raw readings CSV at path ("-": stdin) under the
// configured header (inputfiles.ReadReadings) when called, for a job that reads its
// readings once its graph is loaded (RunAnswer). Without a path it is nil:
// the readings are a property, read with the graph.
func (s *Stores) ReadingsFrom(stdin io.Reader, path string) func() (map[string]float64, error) {
	if path == "" {
		return nil
	}
	return func() (map[string]float64, error) {
		header, _ := csvin.ParseHeader(s.cfg.Input.Header) // validated by config
		return inputfiles.ReadReadings(stdin, path, header)
	}
}
