package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * A pool of small direct little-endian buffers for message headers and atomics requests and replies, carved from
 * larger chunks; agent thread only. A buffer goes back only once UCX is done with it.
 */
final class SmallBuffers
{
    /** Capacity of each buffer: fits a {@link HeaderDescriptor header} and an atomics request or reply. */
    static final int BYTES = 64;
    private static final int PER_CHUNK = 64;

    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();

    /** @return a free buffer, position 0, limit {@link #BYTES}. */
    ByteBuffer acquire()
    {
        final ByteBuffer b = free.poll();
        if (b != null)
        {
            return b;
        }
        final ByteBuffer chunk = ByteBuffer.allocateDirect(BYTES * PER_CHUNK);
        for (int i = 1; i < PER_CHUNK; i++)
        {
            free.push(chunk.slice(i * BYTES, BYTES).order(ByteOrder.LITTLE_ENDIAN));
        }
        return chunk.slice(0, BYTES).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Returns {@code buffer} to the pool. */
    void release(final ByteBuffer buffer)
    {
        free.push(buffer);
    }
}
