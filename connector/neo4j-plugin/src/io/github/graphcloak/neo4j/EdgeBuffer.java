package io.github.graphcloak.neo4j;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * EdgeBuffer packs edges in graphcloak.read's layout: little-endian int32
 * start position, int32 end position and, when weighted, float64 weight.
 */
final class EdgeBuffer {
    /** Edges per chunk by default (a chunk may run over when a node's edges are kept together). */
    static final int CHUNK = 1 << 16;

    private final int width;
    private final int chunk;
    private ByteBuffer b;

    EdgeBuffer(boolean weighted, int chunk) {
        this.width = weighted ? 16 : 8;
        this.chunk = chunk;
        b = ByteBuffer.allocate(chunk * width).order(ByteOrder.LITTLE_ENDIAN);
    }

    boolean full() {
        return b.position() >= chunk * width;
    }

    boolean isEmpty() {
        return b.position() == 0;
    }

    void put(int a, int z) {
        grow();
        b.putInt(a).putInt(z);
    }

    void put(int a, int z, double w) {
        grow();
        b.putInt(a).putInt(z).putDouble(w);
    }

    private void grow() {
        if (b.remaining() < width) {
            ByteBuffer g = ByteBuffer.allocate(b.capacity() * 2).order(ByteOrder.LITTLE_ENDIAN);
            b.flip();
            g.put(b);
            b = g;
        }
    }

    /** take returns the packed edges and empties the buffer. */
    byte[] take() {
        byte[] out = Arrays.copyOf(b.array(), b.position());
        b.clear();
        return out;
    }
}
