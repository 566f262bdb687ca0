package community

import "github.com/graphcloak/graphcloak/errkind"

// Kinds of this package's errors (package errkind): what a caller can do
// about them, mapped to exit codes by the command in one place.

func (*MissingNodesError) Kind() errkind.Kind { return errkind.BadInput }
func (*ParseError) Kind() errkind.Kind        { return errkind.BadInput }
func (*UnknownNodesError) Kind() errkind.Kind { return errkind.BadInput }
