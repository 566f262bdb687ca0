package stores

import (
	"context"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/job"
)

// A job's loaders (job.Env's Load and LoadReleased): the graph read
// through the stores, with the readings and the communities each job
// takes.

// ReleaseInput loads a release's graph and its raw readings in node
// order: the value property read with the graph when valueProperty is
// set, else readings (by node key); and the communities c names, which
// the forecasts score (Leiden, c's zero value or Kind leiden: none here,
// the job runs it).
func (s *Stores) ReleaseInput(ctx context.Context, spec, valueProperty string, readings map[string]float64, c Communities) (*job.Input, error) {
	opt := LoadOptions{ValueProperty: valueProperty}
	if c.Kind == "property" {
		opt.CommunityProperty = c.Arg
	}
	lg, err := s.LoadGraph(ctx, spec, opt)
	if err != nil {
		return nil, err
	}
	graph := lg.Graph
	s.logger.Info("graph loaded", "graph", spec, "nodeCount", graph.N(), "relationshipCount", graph.NumEdges())
	in := &job.Input{Graph: graph}
	if valueProperty != "" {
		in.Readings = lg.Pulled.Values
	} else if in.Readings, err = graphcloak.ValuesByKey(graph, readings); err != nil {
		return nil, err
	}
	if c.Kind != "" && c.Kind != "leiden" {
		if in.Partition, in.Names, err = s.partition(ctx, c, lg); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// LocateInput loads a localisation's graph with the values of
// valueProperty (Neo4j; "": none) and the communities c names.
func (s *Stores) LocateInput(ctx context.Context, spec string, c Communities, valueProperty string) (*job.Input, error) {
	return s.locateInput(ctx, spec, c, LoadOptions{ValueProperty: valueProperty})
}

// locateInput is LocateInput with the load options opt (its value
// property set).
func (s *Stores) locateInput(ctx context.Context, spec string, c Communities, opt LoadOptions) (*job.Input, error) {
	if c.Kind == "property" {
		opt.CommunityProperty = c.Arg
	}
	lg, err := s.LoadGraph(ctx, spec, opt)
	if err != nil {
		return nil, err
	}
	input := &job.Input{Graph: lg.Graph}
	if lg.Pulled != nil {
		input.Readings = lg.Pulled.Values
	}
	input.Partition, input.Names, err = s.partition(ctx, c, lg)
	return input, err
}

// AnswerInput loads a private answer's graph, its communities and its raw
// readings: the configured value property read with the graph, or, when
// readings is not nil, what it reads (by node key), read once the graph
// is loaded.
//
// A reading that is missing or not a finite number is read as NaN: the
// answer treats it as outside its model, never naming the node.
func (s *Stores) AnswerInput(ctx context.Context, spec string, c Communities, readings func() (map[string]float64, error)) (*job.Input, error) {
	input, err := s.locateInput(ctx, spec, c, LoadOptions{ValueProperty: s.cfg.Projection.ValueProperty, AllowMissingValues: true, AllowBadValues: true})
	if err != nil || readings == nil {
		return input, err
	}
	y, err := readings()
	if err != nil {
		return nil, err
	}
	input.Readings, err = graphcloak.AnswerValuesByKey(input.Graph, y)
	return input, err
}
