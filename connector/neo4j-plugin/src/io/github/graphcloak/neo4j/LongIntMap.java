package io.github.graphcloak.neo4j;

import java.util.Arrays;

/**
 * LongIntMap maps node ids (≥ 0) to their positions in the stream. Node
 * ids are dense in practice (Neo4j reuses freed ids), so when the largest
 * is at most a few times the number of selected nodes the map is a plain
 * array indexed by id — one load per lookup, in an array small enough to
 * stay in cache — and else an open-addressing table. It is filled once,
 * then only read (by several threads).
 */
final class LongIntMap {
    /** The array form is used while its length is at most DENSE_FACTOR·n + DENSE_SLACK. */
    private static final long DENSE_FACTOR = 8;
    private static final long DENSE_SLACK = 1 << 20;

    private final int[] dense; // position by id, -1: not selected; null: the table is used
    private final long[] keys;
    private final int[] vals;
    private final int mask;

    /** of maps ids[i] to i (ids ascending), in the form that suits them. */
    static LongIntMap of(long[] ids) {
        long max = ids.length == 0 ? -1 : ids[ids.length - 1];
        return new LongIntMap(ids, max < DENSE_FACTOR * ids.length + DENSE_SLACK && max < Integer.MAX_VALUE - 8);
    }

    /** LongIntMap maps ids[i] to i, as an array by id when dense, else as a table. */
    LongIntMap(long[] ids, boolean dense) {
        long max = ids.length == 0 ? -1 : ids[ids.length - 1];
        if (dense) {
            this.dense = new int[(int) (max + 1)];
            Arrays.fill(this.dense, -1);
            for (int i = 0; i < ids.length; i++) {
                this.dense[(int) ids[i]] = i;
            }
            keys = null;
            vals = null;
            mask = 0;
            return;
        }
        this.dense = null;
        int cap = Integer.highestOneBit(Math.max(4, 2 * ids.length) - 1) << 1;
        keys = new long[cap];
        Arrays.fill(keys, -1);
        vals = new int[cap];
        mask = cap - 1;
        for (int i = 0; i < ids.length; i++) {
            int s = slot(ids[i]);
            while (keys[s] != -1 && keys[s] != ids[i]) {
                s = (s + 1) & mask;
            }
            keys[s] = ids[i];
            vals[s] = i;
        }
    }

    private int slot(long k) {
        return (int) ((k * 0x9E3779B97F4A7C15L) >>> 33) & mask;
    }

    /** get returns the position of id k, or -1 when k is not selected. */
    int get(long k) {
        if (dense != null) {
            return k >= 0 && k < dense.length ? dense[(int) k] : -1;
        }
        int s = slot(k);
        while (keys[s] != -1) {
            if (keys[s] == k) {
                return vals[s];
            }
            s = (s + 1) & mask;
        }
        return -1;
    }
}
