// Package config is the one place viper lives: it merges a YAML file,
// GRAPHCLOAK_* environment variables and command-line flags into a typed
// Config and validates it once.
//
// Precedence, highest first: flags, environment, config file, defaults.
// Secrets (the Neo4j password) are never logged, printed or put in errors.
package config
