// Launcher starts Neo4j Community 5.26 in-process (neo4j-harness) with Bolt on
// 127.0.0.1:<port>, authentication enabled, and no HTTP server, for
// graphcloak's integration tests. It runs as a single-file source program:
//
//	java -cp "$(cat integration/neo4j/cp.txt)" integration/neo4j/Launcher.java DIR PORT READYFILE
//
// DIR holds the database files (DIR/data survives restarts, so a killed server
// can be restarted on the same data). PORT 0 picks a free port. When Bolt is up
// the Bolt URI is written to READYFILE (atomically, via a rename), which is the
// ready signal scripts/neo4j.sh waits for. The password of the "neo4j" user is
// set from the environment variable NEO4J_PASSWORD (default
// "graphcloak-test", at least 8 characters); it is never printed.
// GRAPHCLOAK_NEO4J_PAGECACHE sets the page cache (default "256m").
// GRAPHCLOAK_NEO4J_WATCH_PID, when set, makes the server shut down once that
// process is gone (a test that owns the server and is killed never leaves
// it running).
//
// Neo4j Graph Data Science: the GDS jars on the classpath (pom.xml; test only,
// never part of graphcloak) provide its kernel extensions; links to them in
// DIR/plugins make Neo4j register their procedures (gds.*, unrestricted), as
// an installed GDS plugin would be.
//
// graphcloak's own plugin (connector/neo4j-plugin, the procedure
// graphcloak.read): every jar named in GRAPHCLOAK_NEO4J_PLUGINS (separated by
// ':'; scripts/neo4j.sh builds and names it) is linked into DIR/plugins too,
// as a user installs it on a real server. GRAPHCLOAK_NEO4J_UNRESTRICTED
// (comma-separated, default "gds.*,graphcloak.*") sets which procedures may
// use the kernel (dbms.security.procedures.unrestricted).
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.io.ByteUnit;

public class Launcher {
    public static void main(String[] a) throws Exception {
        if (a.length != 3) {
            System.err.println("usage: Launcher DIR PORT READYFILE");
            System.exit(2);
        }
        Path dir = Path.of(a[0]).toAbsolutePath();
        int port = Integer.parseInt(a[1]);
        Path ready = Path.of(a[2]).toAbsolutePath();
        String pw = System.getenv().getOrDefault("NEO4J_PASSWORD", "graphcloak-test");
        String pagecache = System.getenv().getOrDefault("GRAPHCLOAK_NEO4J_PAGECACHE", "256m");
        Files.deleteIfExists(ready);
        Files.createDirectories(dir);

        // GRAPHCLOAK_NEO4J_UNRESTRICTED (comma-separated) replaces the
        // procedures allowed the kernel: a test leaves graphcloak.* out to
        // see the plugin sandboxed, as on a server configured without it.
        List<String> unrestricted = List.of(
                System.getenv().getOrDefault("GRAPHCLOAK_NEO4J_UNRESTRICTED", "gds.*,graphcloak.*").split(","));
        Path plugins = linkGdsPlugins(dir.resolve("plugins"));
        for (String jar : System.getenv().getOrDefault("GRAPHCLOAK_NEO4J_PLUGINS", "").split(":")) {
            if (!jar.isEmpty()) {
                Path j = Path.of(jar).toAbsolutePath();
                Files.createSymbolicLink(plugins.resolve(j.getFileName()), j);
            }
        }

        long t0 = System.nanoTime();
        Neo4j neo = Neo4jBuilders.newInProcessBuilder(dir)
                .withConfig(GraphDatabaseSettings.plugin_dir, plugins)
                .withConfig(GraphDatabaseSettings.procedure_unrestricted, unrestricted)
                .withDisabledServer()
                .withConfig(GraphDatabaseSettings.data_directory, dir.resolve("data"))
                .withConfig(GraphDatabaseSettings.auth_enabled, true)
                .withConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pagecache))
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                // Transaction timeouts are enforced when the monitor runs
                // (default every 2 s): often enough that TestTransactionTimeout's
                // 1 ms timeout stops its read whatever the machine's speed.
                .withConfig(GraphDatabaseSettings.transaction_monitor_check_interval, Duration.ofMillis(10))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(neo::close));
        String watch = System.getenv("GRAPHCLOAK_NEO4J_WATCH_PID");
        if (watch != null && !watch.isEmpty()) {
            long owner = Long.parseLong(watch);
            Thread w = new Thread(() -> {
                while (ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) {
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                System.out.println("owner process " + owner + " is gone; shutting down");
                System.exit(0);
            });
            w.setDaemon(true);
            w.start();
        }

        // With auth enabled the neo4j user starts with password "neo4j" and a
        // forced change; set the test password without the change requirement.
        var system = neo.databaseManagementService().database("system");
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", pw));
        } catch (RuntimeException e) {
            // A restart on existing data: the password is already the test one.
            String m = String.valueOf(e.getMessage());
            if (!m.contains("cannot be the same")) {
                throw e;
            }
            system.executeTransactionally("ALTER USER neo4j SET PASSWORD CHANGE NOT REQUIRED");
        }

        String uri = neo.boltURI().toString();
        Path tmp = ready.resolveSibling(ready.getFileName() + ".tmp");
        Files.writeString(tmp, uri + "\n");
        Files.move(tmp, ready, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        System.out.printf("neo4j %s ready at %s after %.1f s (data %s)%n",
                neo4jVersion(), uri, (System.nanoTime() - t0) / 1e9, dir.resolve("data"));
        System.out.flush();
        Thread.currentThread().join();
    }

    // linkGdsPlugins links every GDS jar of the classpath into dir (emptied
    // first) and returns dir.
    private static Path linkGdsPlugins(Path dir) throws java.io.IOException {
        Files.createDirectories(dir);
        try (var old = Files.list(dir)) {
            for (Path p : old.toList()) {
                Files.delete(p);
            }
        }
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path jar = Path.of(e);
            if (jar.toString().contains("/org/neo4j/gds/") && jar.toString().endsWith(".jar")) {
                Files.createSymbolicLink(dir.resolve(jar.getFileName()), jar.toAbsolutePath());
            }
        }
        return dir;
    }

    private static String neo4jVersion() {
        Package p = Neo4j.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "5.26" : v;
    }
}
