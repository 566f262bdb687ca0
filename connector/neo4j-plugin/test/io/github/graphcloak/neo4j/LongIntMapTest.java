package io.github.graphcloak.neo4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** LongIntMap against a HashMap (the oracle), in both of its forms. */
class LongIntMapTest {
    private static long[] ascending(TreeSet<Long> set) {
        return set.stream().mapToLong(Long::longValue).toArray();
    }

    private static void check(long[] ids, Random rnd, long probeRange) {
        Map<Long, Integer> oracle = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            oracle.put(ids[i], i);
        }
        LongIntMap chosen = LongIntMap.of(ids);
        LongIntMap table = new LongIntMap(ids, false);
        for (long id : ids) {
            assertEquals(oracle.get(id), chosen.get(id), "id " + id);
            assertEquals(oracle.get(id), table.get(id), "id " + id + " (table)");
        }
        for (int k = 0; k < 100_000; k++) {
            long probe = (long) (rnd.nextDouble() * probeRange) - 3;
            int want = oracle.getOrDefault(probe, -1);
            assertEquals(want, chosen.get(probe), "probe " + probe);
            assertEquals(want, table.get(probe), "probe " + probe + " (table)");
        }
    }

    @Test
    void denseIds() {
        Random rnd = new Random(1);
        TreeSet<Long> set = new TreeSet<>();
        while (set.size() < 50_000) {
            set.add((long) rnd.nextInt(80_000));
        }
        check(ascending(set), rnd, 90_000);
    }

    @Test
    void sparseIds() {
        Random rnd = new Random(2);
        TreeSet<Long> set = new TreeSet<>();
        while (set.size() < 20_000) {
            set.add((long) (rnd.nextDouble() * 1e12));
        }
        long[] ids = ascending(set);
        check(ids, rnd, (long) 1e12);
        check(new long[0], rnd, 100);
    }
}
