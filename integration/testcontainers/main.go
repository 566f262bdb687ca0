// Command testcontainers starts Neo4j 5.26 in Docker with
// testcontainers-go's Neo4j module: the alternative to scripts/neo4j.sh
// (neo4j-harness on Java 17) on machines where a Docker engine works.
// scripts/test.sh uses it with GRAPHCLOAK_NEO4J_PROVIDER=docker, or
// automatically when Java 17 or Maven are missing and `docker info` works.
//
//	go build -o /tmp/tcneo4j . && /tmp/tcneo4j -ready /tmp/neo4j.ready
//
// It prints NEO4J_URI=neo4j://HOST:PORT (also written to -ready once Bolt
// answers), keeps the container until SIGINT or SIGTERM, then terminates
// it (testcontainers' reaper removes it too if this process is killed).
// The password is $NEO4J_PASSWORD (default graphcloak-test; Neo4j 5 images
// need at least 8 characters). -plugin JAR installs a plugin jar (graphcloak's,
// built by scripts/neo4j-plugin.sh) in the container's /plugins and lets its
// graphcloak.* procedures use the kernel (unrestricted), as scripts/neo4j.sh
// does for the harness. It is a separate Go module so that the main
// module does not depend on the Docker client.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/testcontainers/testcontainers-go"
	tcneo4j "github.com/testcontainers/testcontainers-go/modules/neo4j"
)

func main() {
	ready := flag.String("ready", "", "write the Bolt URI to this file when the server is up")
	image := flag.String("image", "neo4j:5.26", "Neo4j Docker image")
	plugin := flag.String("plugin", "", "a plugin jar to install (graphcloak's: scripts/neo4j-plugin.sh)")
	flag.Parse()
	if err := run(*image, *ready, *plugin); err != nil {
		fmt.Fprintln(os.Stderr, "testcontainers:", err)
		os.Exit(1)
	}
}

func run(image, ready, plugin string) (err error) {
	// testcontainers panics when it finds no Docker engine.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("no usable Docker engine: %v", r)
		}
	}()
	pw := os.Getenv("NEO4J_PASSWORD")
	if pw == "" {
		pw = "graphcloak-test"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var c *tcneo4j.Neo4jContainer
	opts := []testcontainers.ContainerCustomizer{tcneo4j.WithAdminPassword(pw)}
	if plugin != "" {
		opts = append(opts,
			testcontainers.WithFiles(testcontainers.ContainerFile{
				HostFilePath: plugin, ContainerFilePath: "/plugins/" + filepath.Base(plugin), FileMode: 0o644}),
			tcneo4j.WithNeo4jSetting("dbms.security.procedures.unrestricted", "graphcloak.*"))
	}
	c, err = tcneo4j.Run(ctx, image, opts...)
	defer func() {
		if c != nil {
			if err := testcontainers.TerminateContainer(c); err != nil {
				fmt.Fprintln(os.Stderr, "testcontainers: terminate:", err)
			}
		}
	}()
	if err != nil {
		return fmt.Errorf("start %s: %w", image, err)
	}
	uri, err := c.BoltUrl(ctx)
	if err != nil {
		return err
	}
	if ready != "" {
		tmp := filepath.Join(filepath.Dir(ready), "."+filepath.Base(ready)+".tmp")
		if err := os.WriteFile(tmp, []byte(uri+"\n"), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, ready); err != nil {
			return err
		}
	}
	fmt.Println("NEO4J_URI=" + uri)
	<-ctx.Done()
	return nil
}
