package sensitivity

import "github.com/graphcloak/graphcloak/errkind"

// Kinds of this package's errors (package errkind): what a caller can do
// about them, which a command maps to its outcomes in one place.

func (*ParamError) Kind() errkind.Kind               { return errkind.BadInput }
func (*PairError) Kind() errkind.Kind                { return errkind.BadInput }
func (*CertificateMismatchError) Kind() errkind.Kind { return errkind.BadInput }
