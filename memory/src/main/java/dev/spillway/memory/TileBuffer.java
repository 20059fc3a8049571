package dev.spillway.memory;

import com.sun.jna.Pointer;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An aligned off-heap buffer owned by a {@link BufferPool}; freed explicitly, never by the GC. Where anonymous
 * {@code mmap} is available the buffer is exactly its pages; otherwise it is a JDK direct buffer over-allocated by
 * one alignment unit to align itself, and the pool charges that too.
 */
public final class TileBuffer
{
    private static final Cleaner CLEANER = Cleaner.create();

    private final ByteBuffer aligned;
    private final Pointer mapped;

    TileBuffer(final int capacity, final int alignment)
    {
        final Pointer p = PageMemory.AVAILABLE ? PageMemory.map(capacity) : null;
        if (p != null)
        {
            mapped = p;
            aligned = p.getByteBuffer(0, capacity).order(ByteOrder.nativeOrder());
        }
        else
        {
            mapped = null;
            final ByteBuffer raw = ByteBuffer.allocateDirect(capacity + alignment);
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

    /**
     * Gives the memory back to the OS at once, yet leaves every view of the buffer safe to touch: mapped pages are
     * dropped (later reads see zeros) and the address range is unmapped only once the GC finds no view left. A
     * direct buffer is left to the GC. Either way a task that kept its buffer cannot crash the JVM.
     */
    void free()
    {
        if (mapped != null)
        {
            final Pointer p = mapped;
            final long length = aligned.capacity();
            PageMemory.dropPages(p, length);
            CLEANER.register(aligned, () -> PageMemory.unmap(p, length));
        }
    }
}
