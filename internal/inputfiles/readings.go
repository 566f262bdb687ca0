package inputfiles

import (
	"io"
	"os"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/errkind"
)

// ReadingsFrom reads the raw readings CSV at path ("-": stdin) under
// header (the configured input.header: auto, yes or no) when called, for
// a job that reads its readings later, or again at every slot (the
// private answer, once its graph is loaded; serve's slots). Without a
// path it is nil: the readings are a property, read with the graph.
func ReadingsFrom(stdin io.Reader, path, header string) func() (map[string]float64, error) {
	if path == "" {
		return nil
	}
	return func() (map[string]float64, error) { return readReadings(stdin, path, header, graphcloak.ReadValues) }
}

// AnswerReadingsFrom is ReadingsFrom for a private answer: a value that is
// not a finite number is read as NaN (graphcloak.ReadAnswerValues), a
// broken reading the answer treats as outside its model.
func AnswerReadingsFrom(stdin io.Reader, path, header string) func() (map[string]float64, error) {
	if path == "" {
		return nil
	}
	return func() (map[string]float64, error) {
		return readReadings(stdin, path, header, graphcloak.ReadAnswerValues)
	}
}

// readReadings reads a raw readings CSV (node,value) from the file path
// or, for "-", from stdin, under header (graphcloak.ReadValues).
func readReadings(stdin io.Reader, path, header string, read func(io.Reader, string) (map[string]float64, error)) (map[string]float64, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, errkind.Inputf("%s: %w", ParamValues, err)
		}
		defer f.Close()
		r = f
	}
	return read(r, header)
}
