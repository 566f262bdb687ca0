package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// NamedProjection is a projection saved under a name (graphcloak
// projection save), like a graph in the GDS catalog: the four choices that
// say which graph is read. It lives in the config file under
// "projections:", so every command given --projection NAME (or
// GRAPHCLOAK_PROJECTION_NAME, or projection.name in the file) reads the
// same graph without the flags being retyped.
type NamedProjection struct {
	NodeLabels                 []string `yaml:"nodeLabels,omitempty" json:"nodeLabels"`
	RelationshipTypes          []string `yaml:"relationshipTypes,omitempty" json:"relationshipTypes"`
	RelationshipWeightProperty string   `yaml:"relationshipWeightProperty,omitempty" json:"relationshipWeightProperty"`
	NodeKeyProperty            string   `yaml:"nodeKeyProperty,omitempty" json:"nodeKeyProperty"`
}

// projectionsKey is the config file's section of named projections.
const projectionsKey = "projections"

// projectionName is what a projection may be called: a short word, so it
// is a YAML key and a shell argument without quoting.
var projectionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// CheckProjectionName refuses a name that is not a short word.
func CheckProjectionName(name string) error {
	if !projectionName.MatchString(name) {
		return &Error{Key: "projection.name", Reason: fmt.Sprintf("%q is not a projection name (letters, digits, _ . -; at most 64)", name)}
	}
	return nil
}

// projectionField is one choice of a projection: its key and flag, a
// pointer to the configured value, the named value, and both as text.
type projectionField struct {
	key, flag    string
	cfg, named   any
	cfgS, namedS string
}

// projectionFields pairs each field of a named projection with its
// configuration key and flag, in the order they are reported.
func projectionFields(c *Projection, n *NamedProjection) []projectionField {
	list := func(s []string) string { return strings.Join(s, ",") }
	return []projectionField{
		{"projection.nodeLabels", "--node-labels", &c.NodeLabels, n.NodeLabels, list(c.NodeLabels), list(n.NodeLabels)},
		{"projection.relationshipTypes", "--relationship-types", &c.RelationshipTypes, n.RelationshipTypes, list(c.RelationshipTypes), list(n.RelationshipTypes)},
		{"projection.relationshipWeightProperty", "--relationship-weight-property", &c.RelationshipWeightProperty, n.RelationshipWeightProperty, c.RelationshipWeightProperty, n.RelationshipWeightProperty},
		{"projection.nodeKeyProperty", "--node-key-property", &c.NodeKeyProperty, n.NodeKeyProperty, c.NodeKeyProperty, n.NodeKeyProperty},
	}
}

// ProjectionDiff names the flags whose values differ between the
// projection used (got) and another (want, e.g. a release's run record):
// "--relationship-weight-property is \"\" here, \"conductance\" there".
// Empty when they select the same graph.
func ProjectionDiff(got, want NamedProjection) []string {
	var out []string
	for _, f := range projectionFields(&Projection{NodeLabels: got.NodeLabels, RelationshipTypes: got.RelationshipTypes,
		RelationshipWeightProperty: got.RelationshipWeightProperty, NodeKeyProperty: got.NodeKeyProperty}, &want) {
		if f.cfgS != f.namedS {
			out = append(out, fmt.Sprintf("%s %q (the release had %q)", f.flag, f.cfgS, f.namedS))
		}
	}
	return out
}

// ProjectionGiven reports whether the run names its projection: by
// --projection or by any of the four projection keys set anywhere
// (flag, environment, file). Otherwise commands reading a recorded run
// may take the run's projection.
func (l *Loaded) ProjectionGiven() bool {
	if l.Projection.Name != "" {
		return true
	}
	for _, k := range []string{"projection.nodeLabels", "projection.relationshipTypes",
		"projection.relationshipWeightProperty", "projection.nodeKeyProperty"} {
		if l.Sources[k] != FromDefault {
			return true
		}
	}
	return false
}

// applyNamedProjection sets the projection keys from the named projection
// of l.Projection.Name. A key also set otherwise must agree with it: the
// error names the flag that contradicts the name.
func (l *Loaded) applyNamedProjection() error {
	name := l.Projection.Name
	if name == "" {
		return nil
	}
	if err := CheckProjectionName(name); err != nil {
		return err
	}
	n, ok := l.Projections[name]
	if !ok {
		known := make([]string, 0, len(l.Projections))
		for k := range l.Projections {
			known = append(known, k)
		}
		sort.Strings(known)
		where := "no projections are saved"
		if len(known) > 0 {
			where = "saved: " + strings.Join(known, ", ")
		}
		return &Error{Key: "projection.name", Reason: fmt.Sprintf("no projection named %q in %s (%s; graphcloak projection save %s --node-labels … creates it)",
			name, displayFile(l.File), where, name)}
	}
	for _, f := range projectionFields(&l.Projection, &n) {
		if l.Sources[f.key] == FromDefault {
			switch p := f.cfg.(type) {
			case *[]string:
				*p = slices.Clone(f.named.([]string))
			case *string:
				*p = f.named.(string)
			}
			l.Sources[f.key] = FromProjection
			continue
		}
		if f.cfgS != f.namedS {
			return &Error{Key: f.key, Reason: fmt.Sprintf("%s %q contradicts projection %q, which has %q (drop one of them)", f.flag, f.cfgS, name, f.namedS)}
		}
	}
	return nil
}

func displayFile(file string) string {
	if file == "" {
		return "the config file (none yet)"
	}
	return file
}

// parseProjections reads the "projections:" section of a config file.
func parseProjections(data []byte) (map[string]NamedProjection, error) {
	var doc struct {
		Projections map[string]NamedProjection `yaml:"projections"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]NamedProjection{}, nil
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{Key: projectionsKey, Reason: "must map names to nodeLabels, relationshipTypes, relationshipWeightProperty and nodeKeyProperty"}
	}
	if doc.Projections == nil {
		doc.Projections = map[string]NamedProjection{}
	}
	for name := range doc.Projections {
		if err := CheckProjectionName(name); err != nil {
			return nil, err
		}
	}
	return doc.Projections, nil
}

// ConfigFile is the file projection save and drop edit: --config FILE,
// else the default location.
func ConfigFile(explicit string) string {
	if explicit != "" {
		return explicit
	}
	return DefaultFile()
}

// SaveProjection stores p under name in the config file, creating the
// file (mode 0600) and its directory when needed and keeping everything
// else in it, comments included. It replaces a projection of that name
// only when replace is set.
func SaveProjection(file, name string, p NamedProjection, replace bool) error {
	return editProjections(file, func(section *yaml.Node) error {
		var val yaml.Node
		if err := val.Encode(p); err != nil {
			return err
		}
		for i := 0; i+1 < len(section.Content); i += 2 {
			if section.Content[i].Value == name {
				if !replace {
					return &Error{Key: projectionsKey, Reason: fmt.Sprintf("a projection named %q is already saved in %s (--replace overwrites it)", name, file)}
				}
				section.Content[i+1] = &val
				return nil
			}
		}
		section.Content = append(section.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, &val)
		return nil
	})
}

// ErrNoProjection: drop of a name that is not saved.
var ErrNoProjection = errors.New("no such projection")

// DropProjection removes the projection name from the config file.
func DropProjection(file, name string) error {
	return editProjections(file, func(section *yaml.Node) error {
		for i := 0; i+1 < len(section.Content); i += 2 {
			if section.Content[i].Value == name {
				section.Content = append(section.Content[:i], section.Content[i+2:]...)
				return nil
			}
		}
		return &Error{Key: projectionsKey, Reason: fmt.Sprintf("no projection named %q in %s", name, file), Err: ErrNoProjection}
	})
}

// ReadProjections returns the projections saved in file (none when the
// file does not exist).
func ReadProjections(file string) (map[string]NamedProjection, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]NamedProjection{}, nil
	}
	if err != nil {
		return nil, &Error{Key: "config", Reason: "cannot read config file", Err: err}
	}
	return parseProjections(data)
}

// editProjections applies edit to the "projections:" mapping of file and
// writes the file back atomically (a temporary file renamed over it),
// keeping its mode.
func editProjections(file string, edit func(section *yaml.Node) error) error {
	if file == "" {
		return &Error{Key: "config", Reason: "no config file location: set --config FILE or XDG_CONFIG_HOME"}
	}
	mode := os.FileMode(0o600)
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = nil
	case err != nil:
		return &Error{Key: "config", Reason: "cannot read config file", Err: err}
	default:
		if st, err := os.Stat(file); err == nil {
			mode = st.Mode().Perm()
		}
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return &Error{Key: "config", Reason: yamlProblem(err)}
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return &Error{Key: "config", Reason: "the config file is not a mapping of the documented keys"}
	}
	var section *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == projectionsKey {
			section = root.Content[i+1]
		}
	}
	if section == nil {
		section = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: projectionsKey}, section)
	}
	if section.Kind != yaml.MappingNode {
		return &Error{Key: projectionsKey, Reason: "must be a mapping of names to projections"}
	}
	if err := edit(section); err != nil {
		return err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return &Error{Key: "config", Reason: "cannot create the config directory", Err: err}
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".config-*.yaml")
	if err != nil {
		return &Error{Key: "config", Reason: "cannot write config file", Err: err}
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return &Error{Key: "config", Reason: "cannot write config file", Err: err}
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return &Error{Key: "config", Reason: "cannot write config file", Err: err}
	}
	if err := tmp.Close(); err != nil {
		return &Error{Key: "config", Reason: "cannot write config file", Err: err}
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return &Error{Key: "config", Reason: "cannot write config file", Err: err}
	}
	return nil
}
