package connector

import "github.com/graphcloak/graphcloak/errkind"

// Parameters this package's errors name (errkind.Param): a command shows
// its own names for them (flags). The node key's and the communities'
// are job's (job.ParamNodeKey, job.ParamCommunityProperty).
const (
	ParamNodeKey           errkind.Param = "node key property"
	ParamValueProperty     errkind.Param = "value property"
	ParamCommunityProperty errkind.Param = "communities property"
	ParamCommunities       errkind.Param = "communities"
)

// Kinds of this package's errors (package errkind): what a caller can do
// about them, mapped to exit codes by the command in one place.

func (*IdentifierError) Kind() errkind.Kind     { return errkind.BadInput }
func (*OwnedLabelError) Kind() errkind.Kind     { return errkind.BadInput } // the user names their own graph
func (*LoadKeyError) Kind() errkind.Kind        { return errkind.BadInput }
func (*ArgumentError) Kind() errkind.Kind       { return errkind.BadInput }
func (*BindingError) Kind() errkind.Kind        { return errkind.BadInput }
func (*RunNotFoundError) Kind() errkind.Kind    { return errkind.BadInput }
func (*RunStateError) Kind() errkind.Kind       { return errkind.Charged }
func (*ScopeBusyError) Kind() errkind.Kind      { return errkind.Busy }
func (*EpochPublishedError) Kind() errkind.Kind { return errkind.Busy }
func (*UnreachableError) Kind() errkind.Kind    { return errkind.Unreachable }
func (*AuthError) Kind() errkind.Kind           { return errkind.BadInput } // configuration: fix the job, retrying cannot help
func (*TimeoutError) Kind() errkind.Kind        { return errkind.Unreachable }
func (*LockWaitError) Kind() errkind.Kind       { return errkind.Unreachable } // its caller tells a held lock (busy) from a server that does not answer
func (*SchemaError) Kind() errkind.Kind         { return errkind.BadInput }    // the job names a label, type or property the database lacks
func (*DataError) Kind() errkind.Kind           { return errkind.Database }
func (*QueryError) Kind() errkind.Kind          { return errkind.Database }
func (*GDSMissingError) Kind() errkind.Kind     { return errkind.BadInput }
