package recovery

import "github.com/graphcloak/graphcloak/errkind"

// Kinds of this package's errors (package errkind): what a caller can do
// about them, mapped to exit codes by the command in one place.

func (*UnbalancedError) Kind() errkind.Kind { return errkind.BadInput }
func (*ModelRangeError) Kind() errkind.Kind { return errkind.BadInput }
func (*MismatchError) Kind() errkind.Kind   { return errkind.BadInput }
func (*ShardError) Kind() errkind.Kind      { return errkind.BadInput }
