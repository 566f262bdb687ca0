package graphcloak

import "github.com/graphcloak/graphcloak/errkind"

// Kinds of this package's errors (package errkind): what a caller can do
// about them, mapped to exit codes by the command in one place.

func (*JobError) Kind() errkind.Kind    { return errkind.BadInput }
func (*ValuesError) Kind() errkind.Kind { return errkind.BadInput }
func (*AuditError) Kind() errkind.Kind  { return errkind.BadInput }
