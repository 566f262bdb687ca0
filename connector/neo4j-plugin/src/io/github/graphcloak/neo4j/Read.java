package io.github.graphcloak.neo4j;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.PropertyCursor;
import org.neo4j.internal.kernel.api.RelationshipDataAccessor;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.internal.kernel.api.TokenRead;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.storageengine.api.PropertySelection;
import org.neo4j.storageengine.api.RelationshipSelection;
import org.neo4j.token.api.TokenConstants;
import org.neo4j.values.storable.NumberValue;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/**
 * graphcloak.read streams a projection to graphcloak in a compact form, in
 * one read transaction: first the selected nodes in chunks (element ids and
 * the raw values of the requested properties), then the relationships
 * between selected nodes as packed binary chunks. It computes nothing and
 * writes nothing; graphcloak validates what it receives exactly as it
 * validates the rows of its Cypher read.
 *
 * <p>Nodes are selected by any of nodeLabels (empty: every node except
 * those carrying one of excludeLabels) and streamed in ascending internal
 * id order; node i of the stream is position i. A relationship (a)-[r]->(b)
 * of any of relationshipTypes (empty: any type) between two selected nodes
 * is streamed once, from a's side, as little-endian int32 position of a,
 * int32 position of b and, when weightProperty is not empty, the float64
 * weight (NaN when r has no such property or it is not a number).
 *
 * <p>Relationships are read by a scan of the relationship store when at
 * least 1/SCAN_SHARE of the nodes is selected, else by traversing each
 * selected node's relationships; configuration {scan: true|false} forces
 * one (the tests compare them).
 */
// Internal node ids (getId, getNodeById, getEndNodeId; deprecated in 5.x for
// removal in a later major version) are used only within this one transaction,
// where they are stable: they are the compact keys the edge chunks need.
@SuppressWarnings("removal")
public class Read {
    /** The layout of an edge chunk; graphcloak refuses any other. */
    public static final long FORMAT = 1;

    static final int NODE_CHUNK = 8192;
    static final int EDGE_CHUNK = 1 << 16;
    /** Scan every relationship when at least 1/SCAN_SHARE of the nodes is selected. */
    static final int SCAN_SHARE = 16;

    @Context
    public Transaction tx;

    // The kernel's cursors read a relationship's end and weight without
    // creating an entity object per relationship (the Core API's cost):
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
    @Description("graphcloak.read(nodeLabels, excludeLabels, relationshipTypes, nodeProperties, weightProperty): "
            + "the projection graphcloak reads, as node chunks then packed edge chunks (graphcloak's connector decodes them); "
            + "configuration {scan: true|false} forces the relationship store scan or the traversal from each node")
    public Stream<Chunk> read(
            @Name("nodeLabels") List<String> nodeLabels,
            @Name("excludeLabels") List<String> excludeLabels,
            @Name("relationshipTypes") List<String> relationshipTypes,
            @Name("nodeProperties") List<String> nodeProperties,
            @Name("weightProperty") String weightProperty,
            @Name(value = "configuration", defaultValue = "{}") Map<String, Object> configuration) {
        long[] ids = selectNodes(nodeLabels, excludeLabels);
        Object scan = configuration == null ? null : configuration.get("scan");
        if (scan != null && !(scan instanceof Boolean)) {
            throw new IllegalArgumentException("graphcloak.read: configuration scan must be true or false, not " + scan);
        }
        Chunks c = new Chunks(ids, relationshipTypes, nodeProperties,
                weightProperty == null || weightProperty.isEmpty() ? null : weightProperty, (Boolean) scan);
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(c, Spliterator.ORDERED), false)
                .onClose(c::close);
    }

    private long[] selectNodes(List<String> labels, List<String> exclude) {
        LongList ids = new LongList();
        if (labels == null || labels.isEmpty()) {
            Label[] ex = new Label[exclude == null ? 0 : exclude.size()];
            for (int i = 0; i < ex.length; i++) {
                ex[i] = Label.label(exclude.get(i));
            }
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
                    while (it.hasNext()) {
                        ids.add(it.next().getId());
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
     * wanted marks the type ids of names (null when names is empty: every
     * type).
     */
    private static boolean[] wanted(TokenRead tokens, List<String> names) {
        if (names == null || names.isEmpty()) {
            return null;
        }
        boolean[] w = new boolean[tokens.relationshipTypeCount() + 1];
        for (String name : names) {
            int t = tokens.relationshipType(name);
            if (t >= w.length) {
                w = Arrays.copyOf(w, t + 1);
            }
            if (t != TokenConstants.NO_TOKEN) {
                w[t] = true;
            }
        }
        return w;
    }

    /**
     * selection returns the outgoing relationships of the named types (all
     * types when names is empty), or null when none of the types exists.
     */
    private static RelationshipSelection selection(TokenRead tokens, List<String> names) {
        if (names == null || names.isEmpty()) {
            return RelationshipSelection.selection(Direction.OUTGOING);
        }
        int[] ids = new int[names.size()];
        int m = 0;
        for (String name : names) {
            int t = tokens.relationshipType(name);
            if (t != TokenConstants.NO_TOKEN) {
                ids[m++] = t;
            }
        }
        return m == 0 ? null : RelationshipSelection.selection(Arrays.copyOf(ids, m), Direction.OUTGOING);
    }

    /** Chunks produces the node chunks, then the edge chunks, lazily. */
    private final class Chunks implements Iterator<Chunk>, AutoCloseable {
        private final long[] ids;
        private final LongIntMap position;
        private final RelationshipSelection selection; // null: no relationship type exists
        private final List<String> props;
        private final String[] propArray;
        private final String weight;
        private final PropertySelection weightKey;
        private final NodeCursor node;
        private final RelationshipTraversalCursor rel;
        private final RelationshipScanCursor scan; // null: traverse from each node
        private final boolean[] typeWanted; // by type id, for the scan; null: every type
        private final PropertyCursor prop;
        private boolean scanDone;
        private int nextNode; // next node of a node chunk
        private int nextSource; // next start node of an edge chunk
        private Chunk pending;

        Chunks(long[] ids, List<String> types, List<String> props, String weight, Boolean scanAll) {
            this.ids = ids;
            this.position = new LongIntMap(ids.length);
            for (int i = 0; i < ids.length; i++) {
                position.put(ids[i], i);
            }
            TokenRead tokens = ktx.tokenRead();
            this.selection = selection(tokens, types);
            this.props = props == null ? List.of() : props;
            this.propArray = this.props.toArray(new String[0]);
            this.weight = weight;
            int key = weight == null ? TokenConstants.NO_TOKEN : tokens.propertyKey(weight);
            this.weightKey = key == TokenConstants.NO_TOKEN ? null : PropertySelection.selection(key);
            var cursors = ktx.cursors();
            this.node = cursors.allocateNodeCursor(ktx.cursorContext(), ktx.memoryTracker());
            this.rel = cursors.allocateRelationshipTraversalCursor(ktx.cursorContext(), ktx.memoryTracker());
            this.prop = cursors.allocatePropertyCursor(ktx.cursorContext(), ktx.memoryTracker());
            // A scan reads the relationship store in order, once; a traversal
            // follows each selected node's chain, in random order, reading
            // every relationship twice (once from each end). The scan wins unless the selected nodes are a small part
            // of the graph.
            var read = ktx.dataRead();
            if (scanAll != null ? scanAll : ids.length * SCAN_SHARE >= read.nodesGetCount()) {
                this.scan = cursors.allocateRelationshipScanCursor(ktx.cursorContext(), ktx.memoryTracker());
                read.allRelationshipsScan(scan);
                this.typeWanted = wanted(tokens, types);
            } else {
                this.scan = null;
                this.typeWanted = null;
            }
        }

        @Override
        public void close() {
            node.close();
            rel.close();
            prop.close();
            if (scan != null) {
                scan.close();
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
            if (selection == null || (scan == null ? nextSource >= ids.length : scanDone)) {
                close();
                return null;
            }
            return scan == null ? edgeChunk() : scanChunk();
        }

        private Chunk nodeChunk() {
            int end = Math.min(ids.length, nextNode + NODE_CHUNK);
            Chunk c = new Chunk();
            c.format = FORMAT;
            c.elementIds = new ArrayList<>(end - nextNode);
            c.properties = new ArrayList<>((end - nextNode) * props.size());
            for (int i = nextNode; i < end; i++) {
                Node n = tx.getNodeById(ids[i]);
                c.elementIds.add(n.getElementId());
                if (propArray.length > 0) {
                    var values = n.getProperties(propArray);
                    for (String p : propArray) {
                        c.properties.add(values.get(p));
                    }
                }
            }
            nextNode = end;
            return c;
        }

        private Chunk edgeChunk() {
            int width = weight == null ? 8 : 16;
            ByteBuffer b = ByteBuffer.allocate(EDGE_CHUNK * width).order(ByteOrder.LITTLE_ENDIAN);
            // A start node's relationships never straddle two chunks, so
            // a chunk may run over EDGE_CHUNK edges: grow it then.
            while (nextSource < ids.length && b.position() < EDGE_CHUNK * width) {
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
                    if (b.remaining() < width) {
                        ByteBuffer g = ByteBuffer.allocate(b.capacity() * 2).order(ByteOrder.LITTLE_ENDIAN);
                        b.flip();
                        g.put(b);
                        b = g;
                    }
                    b.putInt(a).putInt(z);
                    if (weight != null) {
                        b.putDouble(weight(rel));
                    }
                }
                if ((a & 0x3ff) == 0) {
                    guard.check();
                }
            }
            Chunk c = new Chunk();
            c.format = FORMAT;
            c.edges = Arrays.copyOf(b.array(), b.position());
            return c;
        }

        private Chunk scanChunk() {
            int width = weight == null ? 8 : 16;
            ByteBuffer b = ByteBuffer.allocate(EDGE_CHUNK * width).order(ByteOrder.LITTLE_ENDIAN);
            int seen = 0;
            while (b.remaining() >= width) {
                if (!scan.next()) {
                    scanDone = true;
                    break;
                }
                if ((++seen & 0xffff) == 0) {
                    guard.check();
                }
                if (typeWanted != null && (scan.type() >= typeWanted.length || !typeWanted[scan.type()])) {
                    continue;
                }
                int a = position.get(scan.sourceNodeReference());
                int z = a < 0 ? -1 : position.get(scan.targetNodeReference());
                if (z < 0) {
                    continue;
                }
                b.putInt(a).putInt(z);
                if (weight != null) {
                    b.putDouble(weight(scan));
                }
            }
            Chunk c = new Chunk();
            c.format = FORMAT;
            c.edges = Arrays.copyOf(b.array(), b.position());
            return c;
        }

        /**
         * weight returns the weight of the relationship under the cursor r:
         * NaN when it has none or it is not a number.
         */
        private double weight(RelationshipDataAccessor r) {
            if (weightKey == null) {
                return Double.NaN;
            }
            r.properties(prop, weightKey);
            return prop.next() && prop.propertyValue() instanceof NumberValue v ? v.doubleValue() : Double.NaN;
        }
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

    /** LongIntMap maps node ids to positions (open addressing; keys ≥ 0). */
    private static final class LongIntMap {
        private final long[] keys;
        private final int[] vals;
        private final int mask;

        LongIntMap(int n) {
            int cap = Integer.highestOneBit(Math.max(4, 2 * n) - 1) << 1;
            keys = new long[cap];
            Arrays.fill(keys, -1);
            vals = new int[cap];
            mask = cap - 1;
        }

        private int slot(long k) {
            long h = k * 0x9E3779B97F4A7C15L;
            return (int) (h >>> 33) & mask;
        }

        void put(long k, int v) {
            int i = slot(k);
            while (keys[i] != -1 && keys[i] != k) {
                i = (i + 1) & mask;
            }
            keys[i] = k;
            vals[i] = v;
        }

        int get(long k) {
            int i = slot(k);
            while (keys[i] != -1) {
                if (keys[i] == k) {
                    return vals[i];
                }
                i = (i + 1) & mask;
            }
            return -1;
        }
    }
}
