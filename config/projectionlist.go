package config

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/errkind"
)

// ProjectionList is the projections saved in a config file, by name:
// what projection save, list, show and drop report.
type ProjectionList struct {
	File        string             `json:"file"`
	Projections []ListedProjection `json:"projections"`
}

// ListedProjection is one saved projection with its name.
type ListedProjection struct {
	Name string `json:"name"`
	NamedProjection
}

// ListProjections lists the projections saved in file sorted by name, or
// only the one named only ("": all). A name that is not saved is bad
// input.
func ListProjections(file, only string) (*ProjectionList, error) {
	all, err := ReadProjections(file)
	if err != nil {
		return nil, err
	}
	res := &ProjectionList{File: file, Projections: []ListedProjection{}}
	for name, p := range all {
		if only == "" || name == only {
			res.Projections = append(res.Projections, ListedProjection{Name: name, NamedProjection: p})
		}
	}
	if only != "" && len(res.Projections) == 0 {
		return nil, errkind.Inputf("no projection named %q in %s (graphcloak projection list)", only, file)
	}
	sort.Slice(res.Projections, func(i, j int) bool { return res.Projections[i].Name < res.Projections[j].Name })
	return res, nil
}

// WriteText writes l as a table, one projection a row: "*" for no label
// or type filter, "(weight 1)" and "(elementId)" for no weight and no key
// property; a line saying so when l lists none.
func (l *ProjectionList) WriteText(out io.Writer) error {
	if len(l.Projections) == 0 {
		_, err := fmt.Fprintf(out, "no projections saved in %s\n", l.File)
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tNODE LABELS\tRELATIONSHIP TYPES\tWEIGHT PROPERTY\tKEY PROPERTY")
	orAll := func(s []string) string {
		if len(s) == 0 {
			return "*"
		}
		return strings.Join(s, ",")
	}
	orDash := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	for _, p := range l.Projections {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, orAll(p.NodeLabels), orAll(p.RelationshipTypes),
			orDash(p.RelationshipWeightProperty, "(weight 1)"), orDash(p.NodeKeyProperty, "(elementId)"))
	}
	return tw.Flush()
}
