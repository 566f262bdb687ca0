package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
)

const projectionHelp = `A named projection is the four choices that say which graph of Neo4j is read
— node labels, relationship types, relationship weight property, node key
property — saved once under a name, like a graph in the GDS catalog. Every
command that reads a graph then takes --projection NAME instead of the four
flags (or GRAPHCLOAK_PROJECTION_NAME, or projection.name in the config file).

Projections are kept in the config file (--config FILE, else
$XDG_CONFIG_HOME/graphcloak/config.yaml) under "projections:", so scheduled
jobs that read the same file read the same graph. A projection flag given
beside --projection must agree with it (exit 3 otherwise).`

// newProjectionCmd is "projection save|list|show|drop".
func newProjectionCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "projection",
		Short: "Save, list, show and drop named projections (--projection NAME)",
		Long:  projectionHelp,
		Example: `  graphcloak projection save rooms --node-labels Room --relationship-types DOOR \
      --relationship-weight-property conductance --node-key-property roomId
  graphcloak release --graph neo4j --projection rooms --values examples/rooms-readings.csv ...
  graphcloak projection list`,
	}
	var replace bool
	save := &cobra.Command{
		Use:   "save NAME",
		Short: "Save the projection given by the projection flags under NAME",
		Example: `  graphcloak projection save rooms --node-labels Room --relationship-types DOOR \
      --relationship-weight-property conductance --node-key-property roomId`,
		Args: exactlyOneName,
		RunE: func(_ *cobra.Command, args []string) error {
			return runProjectionSave(g, args[0], replace, g.stdout)
		},
	}
	save.Flags().BoolVar(&replace, "replace", false, "overwrite a projection of the same name")
	config.AddFlags(save.Flags(), "node-labels", "relationship-types", "relationship-weight-property", "node-key-property")
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the saved projections",
		Example: `  graphcloak projection list -o json`,
		Args:    usageArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return printProjections(g, g.stdout, "")
		},
	}
	show := &cobra.Command{
		Use:     "show NAME",
		Short:   "Show one saved projection",
		Example: `  graphcloak projection show rooms`,
		Args:    exactlyOneName,
		RunE: func(_ *cobra.Command, args []string) error {
			return printProjections(g, g.stdout, args[0])
		},
	}
	drop := &cobra.Command{
		Use:     "drop NAME",
		Short:   "Remove a saved projection from the config file",
		Example: `  graphcloak projection drop rooms`,
		Args:    exactlyOneName,
		RunE: func(_ *cobra.Command, args []string) error {
			return runProjectionDrop(g, args[0])
		},
	}
	cmd.AddCommand(save, list, show, drop)
	return cmd
}

// runProjectionDrop is "projection drop NAME".
func runProjectionDrop(g *globalOptions, name string) error {
	file := config.ConfigFile(g.configFile)
	if err := config.DropProjection(file, name); err != nil {
		return errkind.Input(err)
	}
	if g.output == "json" {
		return printJSON(g.stdout, config.ProjectionList{File: file, Projections: []config.ListedProjection{}})
	}
	_, err := fmt.Fprintf(g.stdout, "projection %s dropped from %s\n", name, file)
	return err
}

// exactlyOneName accepts one argument, a projection name.
func exactlyOneName(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return errkind.Usagef("%s takes one projection name, got %d arguments", cmd.CommandPath(), len(args))
	}
	if err := config.CheckProjectionName(args[0]); err != nil {
		return errkind.Usagef("%w", err)
	}
	return nil
}

func runProjectionSave(g *globalOptions, name string, replace bool, out io.Writer) error {
	np, err := g.cfg.Projection.Named()
	if err != nil {
		return errkind.Input(err)
	}
	file := config.ConfigFile(g.configFile)
	if err := config.SaveProjection(file, name, np, replace); err != nil {
		return errkind.Input(err)
	}
	return printProjections(g, out, name)
}

// printProjections prints the saved projections, or only the one named.
func printProjections(g *globalOptions, out io.Writer, only string) error {
	file := config.ConfigFile(g.configFile)
	res, err := config.ListProjections(file, only)
	if err != nil {
		return errkind.Input(err)
	}
	if g.output == "json" {
		return printJSON(out, res)
	}
	return res.WriteText(out)
}
