package io.github.graphcloak.neo4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.PropertyCursor;
import org.neo4j.internal.kernel.api.RelationshipDataAccessor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.internal.kernel.api.TokenRead;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;
import org.neo4j.storageengine.api.PropertySelection;
import org.neo4j.storageengine.api.RelationshipSelection;
import org.neo4j.token.api.TokenConstants;
import org.neo4j.values.storable.NumberValue;

/**
 * graphcloak.read streams a projection to graphcloak in a compact form, in
 * one read transaction: first the selected nodes in chunks (element ids and
 * the raw values of the requested properties), then the relationships
 * between selected nodes as packed binary chunks. It computes nothing and
 * writes nothing; graphcloak validates what it receives exactly as it
 * validates the rows of its Cypher read.
 *
 * <p>Nodes are selected by any of nodeLabels (empty: every node), except
 * those carrying one of excludeLabels (graphcloak's bookkeeping), and streamed in ascending internal
 * id order; node i of the stream is position i. A relationship (a)-[r]->(b)
 * of any of relationshipTypes (empty: any type) between two selected nodes
 * is streamed once, as little-endian int32 position of a, int32 position of
 * b and, when weightProperty is not empty, the float64 weight (NaN when r
 * has no such property or it is not a number).
 *
 * <p>Relationships are read by a parallel scan of the relationship store
 * when at least 1/SCAN_SHARE of the nodes is selected, else by traversing
 * each selected node's relationships. The configuration map takes scan
 * (true or false: force one), concurrency (the scan's threads, default
 * min(4, cores)) and edgesPerChunk (default 65 536).
 */
// Internal node ids (getId, getNodeById; deprecated in 5.x for removal in a
// later major version) are used only within this one transaction, where
// they are stable: they are the compact keys the edge chunks need.
@SuppressWarnings("removal")
public class Read {
    /** The layout of an edge chunk; graphcloak refuses any other. */
    public static final long FORMAT = 1;

    static final int NODE_CHUNK = 8192;
    /** Scan every relationship when at least 1/SCAN_SHARE of the nodes is selected. */
    static final int SCAN_SHARE = 16;

    @Context
    public Transaction tx;

    // The kernel's cursors read a relationship's ends and weight without
    // creating an entity object per relationship (the Core API's cost).
    // Neo4j gives the kernel transaction to unrestricted procedures only
    // (dbms.security.procedures.unrestricted=graphcloak.*). The cursors
    // are the access-checked ones, so the caller's privileges still apply.
    @Context
    public KernelTransaction ktx;

    @Context
    public TerminationGuard guard;

    /** One row of the stream: either a node chunk or an edge chunk. */
    public static class Chunk {
        /** FORMAT: the edge layout of this plugin. */
        public long format;
        /** Element ids of the chunk's nodes (null in an edge chunk). */
        public List<String> elementIds;
        /**
         * The requested properties of the chunk's nodes, row-major: node
         * k's property j at k * |nodeProperties| + j, null when absent.
         */
        public List<Object> properties;
        /** Packed edges (null in a node chunk). */
        public byte[] edges;
    }

    @Procedure(name = "graphcloak.read", mode = Mode.READ)
    @Description("graphcloak.read(nodeLabels, excludeLabels, relationshipTypes, nodeProperties, weightProperty[, configuration]): "
            + "the projection graphcloak reads, as node chunks then packed edge chunks (graphcloak's connector decodes them); "
            + "configuration {scan: true|false, concurrency: n, edgesPerChunk: n} forces the store scan or the traversal, "
            + "sets the scan's threads and the size of an edge chunk")
    public Stream<Chunk> read(
            @Name("nodeLabels") List<String> nodeLabels,
            @Name("excludeLabels") List<String> excludeLabels,
            @Name("relationshipTypes") List<String> relationshipTypes,
            @Name("nodeProperties") List<String> nodeProperties,
            @Name("weightProperty") String weightProperty,
            @Name(value = "configuration", defaultValue = "{}") Map<String, Object> configuration) {
        Map<String, Object> conf = configuration == null ? Map.of() : configuration;
        for (String k : conf.keySet()) {
            if (!k.equals("scan") && !k.equals("concurrency") && !k.equals("edgesPerChunk")) {
                throw new IllegalArgumentException(
                        "graphcloak.read: unknown configuration key " + k + " (scan, concurrency, edgesPerChunk)");
            }
        }
        Object scan = conf.get("scan");
        if (scan != null && !(scan instanceof Boolean)) {
            throw new IllegalArgumentException("graphcloak.read: configuration scan must be true or false, not " + scan);
        }
        Object conc = conf.getOrDefault("concurrency", (long) Math.min(4, Runtime.getRuntime().availableProcessors()));
        if (!(conc instanceof Long c) || c < 1 || c > 64) {
            throw new IllegalArgumentException("graphcloak.read: configuration concurrency must be an integer in [1, 64], not " + conc);
        }
        Object chunk = conf.getOrDefault("edgesPerChunk", (long) EdgeBuffer.CHUNK);
        if (!(chunk instanceof Long e) || e < 1 || e > 1 << 24) {
            throw new IllegalArgumentException("graphcloak.read: configuration edgesPerChunk must be an integer in [1, 2^24], not " + chunk);
        }
        long[] ids = selectNodes(nodeLabels, excludeLabels);
        boolean scanAll = scan != null ? (Boolean) scan : ids.length * (long) SCAN_SHARE >= ktx.dataRead().nodesGetCount();
        Chunks chunks = new Chunks(ids, relationshipTypes, nodeProperties,
                weightProperty == null || weightProperty.isEmpty() ? null : weightProperty, scanAll,
                (int) (long) (Long) conc, (int) (long) (Long) chunk);
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(chunks, Spliterator.ORDERED), false)
                .onClose(chunks::close);
    }

    private long[] selectNodes(List<String> labels, List<String> exclude) {
        LongList ids = new LongList();
        Label[] ex = new Label[exclude == null ? 0 : exclude.size()];
        for (int i = 0; i < ex.length; i++) {
            ex[i] = Label.label(exclude.get(i));
        }
        if (labels == null || labels.isEmpty()) {
            try (ResourceIterator<Node> it = tx.getAllNodes().iterator()) {
                next:
                while (it.hasNext()) {
                    Node n = it.next();
                    for (Label l : ex) {
                        if (n.hasLabel(l)) {
                            continue next;
                        }
                    }
                    ids.add(n.getId());
                    if ((ids.size & 0xffff) == 0) {
                        guard.check();
                    }
                }
            }
        } else {
            for (String l : labels) {
                try (ResourceIterator<Node> it = tx.findNodes(Label.label(l))) {
                    next:
                    while (it.hasNext()) {
                        Node n = it.next();
                        for (Label x : ex) {
                            if (n.hasLabel(x)) {
                                continue next;
                            }
                        }
                        ids.add(n.getId());
                        if ((ids.size & 0xffff) == 0) {
                            guard.check();
                        }
                    }
                }
            }
        }
        long[] a = Arrays.copyOf(ids.a, ids.size);
        Arrays.sort(a);
        int m = 0;
        for (int i = 0; i < a.length; i++) {
            if (i == 0 || a[i] != a[i - 1]) {
                a[m++] = a[i];
            }
        }
        return Arrays.copyOf(a, m);
    }

    /**
     * typeIds returns the ids of the named relationship types that exist;
     * null when names is empty (every type).
     */
    private static int[] typeIds(TokenRead tokens, List<String> names) {
        if (names == null || names.isEmpty()) {
            return null;
        }
        int[] ids = new int[names.size()];
        int m = 0;
        for (String name : names) {
            int t = tokens.relationshipType(name);
            if (t != TokenConstants.NO_TOKEN) {
                ids[m++] = t;
            }
        }
        return Arrays.copyOf(ids, m);
    }

    /**
     * weight returns the weight of the relationship under r: NaN when it
     * has none (or key is null: the property does not exist) or it is not
     * a number.
     */
    static double weight(RelationshipDataAccessor r, PropertyCursor prop, PropertySelection key) {
        if (key == null) {
            return Double.NaN;
        }
        r.properties(prop, key);
        return prop.next() && prop.propertyValue() instanceof NumberValue v ? v.doubleValue() : Double.NaN;
    }

    /** Chunks produces the node chunks, then the edge chunks, lazily. */
    private final class Chunks implements Iterator<Chunk>, AutoCloseable {
        private final long[] ids;
        private final LongIntMap position;
        private final String[] props;
        private final boolean weighted;
        private final PropertySelection weightKey; // null: weighted edges get NaN
        private final int[] types; // null: every type; empty: none exists
        private final int chunk; // edges per chunk
        private final EdgeScan scan; // null: traverse from each node
        private NodeCursor node; // the traversal's cursors, from its first chunk
        private RelationshipTraversalCursor rel;
        private PropertyCursor prop;
        private int nextNode; // next node of a node chunk
        private int nextSource; // next start node of the traversal
        private boolean edgesDone;
        private boolean closed;
        private Chunk pending;

        Chunks(long[] ids, List<String> types, List<String> props, String weight, boolean scanAll, int concurrency,
                int chunk) {
            this.ids = ids;
            this.chunk = chunk;
            this.position = LongIntMap.of(ids);
            this.props = props == null ? new String[0] : props.toArray(new String[0]);
            this.weighted = weight != null;
            TokenRead tokens = ktx.tokenRead();
            int key = weight == null ? TokenConstants.NO_TOKEN : tokens.propertyKey(weight);
            this.weightKey = key == TokenConstants.NO_TOKEN ? null : PropertySelection.selection(key);
            this.types = typeIds(tokens, types);
            this.edgesDone = this.types != null && this.types.length == 0;
            // A scan reads the relationship store in order, once, in
            // parallel; a traversal follows each selected node's chain in
            // random order and reads every relationship from both ends. The
            // scan wins unless the selected nodes are a small part of the
            // graph.
            this.scan = scanAll && !edgesDone
                    ? new EdgeScan(ktx, position, wanted(this.types), weightKey, weighted, concurrency, chunk)
                    : null;
        }

        @Override
        public void close() {
            if (closed) {
                return; // at the stream's end and again by its onClose
            }
            closed = true;
            if (scan != null) {
                scan.close();
            }
            if (node != null) {
                node.close();
                rel.close();
                prop.close();
            }
        }

        @Override
        public boolean hasNext() {
            if (pending == null) {
                pending = produce();
            }
            return pending != null;
        }

        @Override
        public Chunk next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Chunk c = pending;
            pending = null;
            return c;
        }

        private Chunk produce() {
            guard.check();
            if (nextNode < ids.length) {
                return nodeChunk();
            }
            byte[] edges = null;
            if (!edgesDone) {
                edges = scan != null ? scanned() : traverse();
                edgesDone = edges == null;
            }
            if (edges == null) {
                close();
                return null;
            }
            Chunk c = new Chunk();
            c.format = FORMAT;
            c.edges = edges;
            return c;
        }

        private Chunk nodeChunk() {
            int end = Math.min(ids.length, nextNode + NODE_CHUNK);
            Chunk c = new Chunk();
            c.format = FORMAT;
            c.elementIds = new ArrayList<>(end - nextNode);
            c.properties = new ArrayList<>((end - nextNode) * props.length);
            for (int i = nextNode; i < end; i++) {
                Node n = tx.getNodeById(ids[i]);
                c.elementIds.add(n.getElementId());
                if (props.length > 0) {
                    Map<String, Object> values = n.getProperties(props);
                    for (String p : props) {
                        c.properties.add(values.get(p));
                    }
                }
            }
            nextNode = end;
            return c;
        }

        private byte[] scanned() {
            try {
                return scan.next(guard::check);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("graphcloak.read: interrupted", e);
            }
        }

        /**
         * traverse packs the outgoing relationships of the next start nodes
         * (a node's relationships never straddle two chunks); null when
         * every start node is done.
         */
        private byte[] traverse() {
            if (nextSource >= ids.length) {
                return null;
            }
            if (node == null) {
                var cursors = ktx.cursors();
                node = cursors.allocateNodeCursor(ktx.cursorContext(), ktx.memoryTracker());
                rel = cursors.allocateRelationshipTraversalCursor(ktx.cursorContext(), ktx.memoryTracker());
                prop = cursors.allocatePropertyCursor(ktx.cursorContext(), ktx.memoryTracker());
            }
            RelationshipSelection selection = types == null
                    ? RelationshipSelection.selection(Direction.OUTGOING)
                    : RelationshipSelection.selection(types, Direction.OUTGOING);
            EdgeBuffer buf = new EdgeBuffer(weighted, chunk);
            while (nextSource < ids.length && !buf.full()) {
                int a = nextSource++;
                ktx.dataRead().singleNode(ids[a], node);
                if (!node.next()) {
                    continue; // deleted since the selection, by this transaction
                }
                node.relationships(rel, selection);
                while (rel.next()) {
                    int z = position.get(rel.otherNodeReference());
                    if (z < 0) {
                        continue;
                    }
                    if (weighted) {
                        buf.put(a, z, weight(rel, prop, weightKey));
                    } else {
                        buf.put(a, z);
                    }
                }
                if ((a & 0x3ff) == 0) {
                    guard.check();
                }
            }
            return buf.take();
        }
    }

    /** wanted marks the type ids in types (null: every type). */
    private static boolean[] wanted(int[] types) {
        if (types == null) {
            return null;
        }
        int max = -1;
        for (int t : types) {
            max = Math.max(max, t);
        }
        boolean[] w = new boolean[max + 1];
        for (int t : types) {
            w[t] = true;
        }
        return w;
    }

    /** LongList is a growable long array. */
    private static final class LongList {
        long[] a = new long[1024];
        int size;

        void add(long v) {
            if (size == a.length) {
                a = Arrays.copyOf(a, 2 * size);
            }
            a[size++] = v;
        }
    }
}
