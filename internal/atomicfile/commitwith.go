package atomicfile

import "io"

// CommitWith writes the whole output with write, then commits it
// (Commit). An output whose write fails is not committed: Abort removes
// it.
func (o *Output) CommitWith(write func(io.Writer) error) error {
	if err := write(o); err != nil {
		return err
	}
	return o.Commit()
}
