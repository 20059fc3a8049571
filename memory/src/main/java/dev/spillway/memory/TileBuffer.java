package dev.spillway.memory;

import com.sun.jna.Pointer;
import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An aligned off-heap buffer owned by a {@link BufferPool}; freed explicitly, never by the GC. Where anonymous
 * {@code mmap} is available the buffer is exactly its pages; otherwise it is a JDK direct buffer over-allocated by
 * one alignment unit to align itself, and the pool charges that too.
 */
public final class TileBuffer
{
    private final ByteBuffer aligned;
    private final Pointer mapped;
    private final ByteBuffer raw;

    TileBuffer(final int capacity, final int alignment)
    {
        final Pointer p = PageMemory.AVAILABLE ? PageMemory.map(capacity) : null;
        if (p != null)
        {
            mapped = p;
            raw = null;
            aligned = p.getByteBuffer(0, capacity).order(ByteOrder.nativeOrder());
        }
        else
        {
            mapped = null;
            raw = ByteBuffer.allocateDirect(capacity + alignment);
            aligned = raw.alignedSlice(alignment).limit(capacity).slice().order(ByteOrder.nativeOrder());
        }
    }

    /** @return bytes the OS is asked for to hold {@code capacity} bytes at {@code alignment}. */
    static long cost(final int capacity, final int alignment)
    {
        return PageMemory.AVAILABLE ? capacity : (long)capacity + alignment;
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
        if (mapped != null)
        {
            PageMemory.unmap(mapped, aligned.capacity());
        }
        else
        {
            BufferUtil.free(raw);
        }
    }
}
