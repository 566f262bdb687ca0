package privacy

import "github.com/graphcloak/graphcloak/errkind"

// Kinds of this package's errors (package errkind): what a caller can do
// about them, which a command maps to its outcomes in one place.

// ErrWrongKey is a key whose fingerprint is not the one the release records.
var ErrWrongKey = errkind.New(errkind.BadInput, "this key is not the one the release was made with (key fingerprints differ)")

// ErrKeyNotRegular is a key path that names a directory or a device.
var ErrKeyNotRegular = errkind.New(errkind.BadInput, "not a regular file")

func (*BudgetError) Kind() errkind.Kind          { return errkind.Budget }
func (*ArgumentError) Kind() errkind.Kind        { return errkind.BadInput }
func (*KeyPermissionError) Kind() errkind.Kind   { return errkind.BadInput }
func (*LedgerCorruptError) Kind() errkind.Kind   { return errkind.BadInput }
func (*ReleaseFileError) Kind() errkind.Kind     { return errkind.BadInput }
func (*ReleaseFileBusyError) Kind() errkind.Kind { return errkind.Busy }
