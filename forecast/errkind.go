package forecast

import "github.com/graphcloak/graphcloak/errkind"

// Kinds of this package's errors (package errkind): what a caller can do
// about them, mapped to exit codes by the command in one place.

func (*ParamError) Kind() errkind.Kind { return errkind.BadInput }
