package config

// GivenScope is the configured scope when it was given (a flag, the
// environment or the config file), "" when it is the default: the
// listings of runs and budgets show every scope unless told one.
func (l *Loaded) GivenScope() string {
	if l.Sources["privacy.scope"] == FromDefault {
		return ""
	}
	return l.Privacy.Scope
}
