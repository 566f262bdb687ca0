package io.github.graphcloak.neo4j;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.neo4j.internal.kernel.api.PartitionedScan;
import org.neo4j.internal.kernel.api.PropertyCursor;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.kernel.api.ExecutionContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.storageengine.api.PropertySelection;

/**
 * EdgeScan reads the selected relationships by a partitioned scan of the
 * relationship store: worker threads, each with its own execution context
 * of the procedure's transaction, pack edges into chunks and hand them to
 * the stream through a bounded queue. It starts at once, so the store is
 * scanned while the node chunks are being sent.
 */
final class EdgeScan implements AutoCloseable {
    private static final Object DONE = new Object();
    private static final int QUEUED_CHUNKS = 8;

    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
    private final List<Thread> workers = new ArrayList<>();
    private final List<ExecutionContext> contexts = new ArrayList<>();
    private final LongIntMap position;
    private final boolean[] typeWanted;
    private final PropertySelection weightKey;
    private final boolean weighted;
    private final int chunk;
    private volatile boolean cancelled;
    private int finished;

    /**
     * EdgeScan starts threads workers over the store. typeWanted marks the
     * wanted type ids (null: every type); weightKey selects the weight
     * (null: weighted edges get NaN, unweighted ones none); chunk is the
     * edges per chunk.
     */
    EdgeScan(KernelTransaction ktx, LongIntMap position, boolean[] typeWanted, PropertySelection weightKey,
            boolean weighted, int threads, int chunk) {
        this.chunk = chunk;
        this.position = position;
        this.typeWanted = typeWanted;
        this.weightKey = weightKey;
        this.weighted = weighted;
        PartitionedScan<RelationshipScanCursor> scan =
                ktx.dataRead().allRelationshipsScan(4 * threads, ktx.cursorContext());
        for (int t = 0; t < threads; t++) {
            ExecutionContext ec = ktx.createExecutionContext();
            contexts.add(ec);
            Thread w = new Thread(() -> work(scan, ec), "graphcloak.read-scan-" + t);
            w.setDaemon(true);
            workers.add(w);
        }
        workers.forEach(Thread::start);
    }

    private void work(PartitionedScan<RelationshipScanCursor> scan, ExecutionContext ec) {
        try (RelationshipScanCursor rc = ec.cursors().allocateRelationshipScanCursor(ec.cursorContext(), ec.memoryTracker());
                PropertyCursor pc = ec.cursors().allocatePropertyCursor(ec.cursorContext(), ec.memoryTracker())) {
            EdgeBuffer buf = new EdgeBuffer(weighted, chunk);
            long seen = 0;
            while (!cancelled && scan.reservePartition(rc, ec)) {
                while (!cancelled && rc.next()) {
                    if ((++seen & 0xffff) == 0) {
                        ec.performCheckBeforeOperation(); // throws once the transaction is terminated
                    }
                    int type = rc.type();
                    if (typeWanted != null && (type >= typeWanted.length || !typeWanted[type])) {
                        continue;
                    }
                    int a = position.get(rc.sourceNodeReference());
                    int z = a < 0 ? -1 : position.get(rc.targetNodeReference());
                    if (z < 0) {
                        continue;
                    }
                    if (weighted) {
                        buf.put(a, z, Read.weight(rc, pc, weightKey));
                    } else {
                        buf.put(a, z);
                    }
                    if (buf.full()) {
                        hand(buf.take(), ec);
                    }
                }
            }
            if (!buf.isEmpty()) {
                hand(buf.take(), ec);
            }
            ec.complete();
            hand(DONE, ec);
        } catch (Throwable e) {
            hand(e, ec);
        }
    }

    /**
     * hand queues x for the stream, waiting while the queue is full; it
     * gives up when the scan is cancelled or the transaction has ended (a
     * stream that is never read to its end or closed must not keep the
     * worker).
     */
    private void hand(Object x, ExecutionContext ec) {
        try {
            while (!cancelled && !queue.offer(x, 100, TimeUnit.MILLISECONDS)) {
                if (!open(ec)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** open reports whether ec's transaction is open and not terminated. */
    private static boolean open(ExecutionContext ec) {
        try {
            ec.performCheckBeforeOperation();
            return ec.isTransactionOpen();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * next returns the next packed chunk, or null when every worker is done.
     * check runs while waiting (the transaction's termination guard).
     */
    byte[] next(Runnable check) throws InterruptedException {
        while (true) {
            Object o = queue.poll(100, TimeUnit.MILLISECONDS);
            if (o == null) {
                check.run();
            } else if (o == DONE) {
                if (++finished == workers.size()) {
                    return null;
                }
            } else if (o instanceof Throwable e) {
                throw new IllegalStateException("graphcloak.read: relationship scan failed: " + e, e);
            } else {
                return (byte[]) o;
            }
        }
    }

    /** close stops the workers and releases their execution contexts. */
    @Override
    public void close() {
        cancelled = true;
        queue.clear();
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        contexts.forEach(ExecutionContext::close);
    }
}
