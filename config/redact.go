package config

import "net/url"

const redacted = "*****"

// Redacted returns a copy safe to print or log: the password is replaced
// by ***** (when set) and any credentials in the URI are masked.
func (c Config) Redacted() Config {
	if c.Neo4j.Password != "" {
		c.Neo4j.Password = redacted
	}
	if u, err := url.Parse(c.Neo4j.URI); err == nil && u.User != nil {
		c.Neo4j.URI = u.Redacted()
	}
	c.Projection.NodeLabels = append([]string(nil), c.Projection.NodeLabels...)
	c.Projection.RelationshipTypes = append([]string(nil), c.Projection.RelationshipTypes...)
	return c
}

// Entry is one line of config show.
type Entry struct {
	Key    string `json:"key"`
	Flag   string `json:"flag,omitempty"`
	Env    string `json:"env"`
	Value  any    `json:"value"`
	Source Source `json:"source"`
}

// Entries lists every key with its redacted value and its source.
func (l *Loaded) Entries() []Entry {
	r := l.Config.Redacted()
	out := make([]Entry, 0, len(keyTable))
	for _, k := range keyTable {
		val := k.field(&r)
		var v any
		switch p := val.(type) {
		case *string:
			v = *p
		case *[]string:
			v = append([]string{}, *p...)
		case *int:
			v = *p
		case *int64:
			v = *p
		case *float64:
			v = *p
		case *bool:
			v = *p
		}
		out = append(out, Entry{Key: k.Name, Flag: k.Flag, Env: k.Env(), Value: v, Source: l.Sources[k.Name]})
	}
	return out
}
