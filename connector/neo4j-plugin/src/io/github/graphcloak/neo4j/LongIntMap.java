package io.github.graphcloak.neo4j;

import java.util.Arrays;

/**
 * LongIntMap maps node ids (≥ 0) to their positions in the stream, by open
 * addressing. It is filled once, then only read (by several threads).
 */
final class LongIntMap {
    private final long[] keys;
    private final int[] vals;
    private final int mask;

    /** LongIntMap maps ids[i] to i. */
    LongIntMap(long[] ids) {
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
