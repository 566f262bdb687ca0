package config

import (
	"sort"

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
