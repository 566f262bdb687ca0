package laplacian

import "github.com/graphcloak/graphcloak/errkind"

// Kinds of this package's errors (package errkind): what a caller can do
// about them, mapped to exit codes by the command in one place.

func (*SpecError) Kind() errkind.Kind    { return errkind.BadInput }
func (*CSVError) Kind() errkind.Kind     { return errkind.BadInput }
func (*EdgeError) Kind() errkind.Kind    { return errkind.BadInput }
func (*SizeError) Kind() errkind.Kind    { return errkind.BadInput }
func (*KeyTypeError) Kind() errkind.Kind { return errkind.BadInput }
