//go:build tools

package graphcloak

import (
	_ "github.com/neo4j/neo4j-go-driver/v5/neo4j"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
	_ "golang.org/x/crypto/chacha20"
	_ "golang.org/x/term"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/plot"
)
