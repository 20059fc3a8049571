package dev.spillway.memory;

import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** An aligned off-heap buffer owned by a {@link BufferPool}; freed explicitly, never by the GC. */
public final class TileBuffer
{
    private final ByteBuffer raw;
    private final ByteBuffer aligned;

    TileBuffer(final int capacity, final int alignment)
    {
        raw = ByteBuffer.allocateDirect(capacity + alignment);
        aligned = raw.alignedSlice(alignment).limit(capacity).slice().order(ByteOrder.nativeOrder());
    }

    /** @return the aligned buffer, position 0, limit = capacity; callers take {@code duplicate()}s. */
    public ByteBuffer buffer()
    {
        return aligned;
    }

    /** @return capacity in bytes (a multiple of the pool's alignment). */
    public int capacity()
    {
        return aligned.capacity();
    }

    void free()
    {
        BufferUtil.free(raw);
    }
}
