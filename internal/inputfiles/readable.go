package inputfiles

import (
	"fmt"
	"os"

	"github.com/graphcloak/graphcloak/errkind"
)

// CheckReadings opens the raw readings file at path and closes it,
// reading nothing: a dry run's check that the charged run will find its
// readings, so that a path that cannot be opened is named now ("" and
// "-", standard input: nothing to check). A directory is refused too.
func CheckReadings(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	f, err := os.Open(path)
	if err == nil {
		var st os.FileInfo
		if st, err = f.Stat(); err == nil && st.IsDir() {
			err = fmt.Errorf("%s is a directory", path)
		}
		f.Close()
	}
	if err != nil {
		return errkind.Inputf("%s: %v", ParamValues, err)
	}
	return nil
}
