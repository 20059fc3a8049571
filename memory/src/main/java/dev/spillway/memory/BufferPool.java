package dev.spillway.memory;

import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayDeque;

/**
 * Aligned off-heap buffers, recycled by size class, allocated only within a {@link DramBudget}.
 * Used by the IO thread only. Recycling a buffer of a size seen before allocates nothing.
 */
public final class BufferPool implements AutoCloseable
{
    private final DramBudget budget;
    private final int alignment;
    private final Int2ObjectHashMap<ArrayDeque<TileBuffer>> idle = new Int2ObjectHashMap<>();
    private long idleBytes;

    /**
     * @param budget    the cap every allocation is charged to.
     * @param alignment buffer alignment in bytes, a power of two (the store's block size).
     */
    public BufferPool(final DramBudget budget, final int alignment)
    {
        if (Integer.bitCount(alignment) != 1)
        {
            throw new IllegalArgumentException("alignment must be a power of two, got " + alignment);
        }
        this.budget = budget;
        this.alignment = alignment;
    }

    /** @return {@code bytes} rounded up to the pool's alignment: what a buffer for that many bytes costs. */
    public int roundUp(final int bytes)
    {
        return (bytes + alignment - 1) & -alignment;
    }

    /** @return the budget this pool allocates from. */
    public DramBudget budget()
    {
        return budget;
    }

    /**
     * @param bytes the payload size.
     * @return a buffer of capacity {@code roundUp(bytes)}, or {@code null} if the budget has no room even after
     *         freeing idle buffers of other sizes.
     */
    public TileBuffer acquire(final int bytes)
    {
        final int size = roundUp(bytes);
        final ArrayDeque<TileBuffer> free = idle.get(size);
        if (free != null && !free.isEmpty())
        {
            idleBytes -= size;
            return free.pop();
        }
        while (!budget.tryAllocate(size))
        {
            if (!freeOneIdle())
            {
                return null;
            }
        }
        return new TileBuffer(size, alignment);
    }

    /** Returns a buffer for reuse. */
    public void release(final TileBuffer buffer)
    {
        idle.computeIfAbsent(buffer.capacity(), k -> new ArrayDeque<>()).push(buffer);
        idleBytes += buffer.capacity();
    }

    /** @return bytes held by idle pooled buffers. */
    public long idleBytes()
    {
        return idleBytes;
    }

    private boolean freeOneIdle()
    {
        for (final ArrayDeque<TileBuffer> free : idle.values())
        {
            final TileBuffer victim = free.poll();
            if (victim != null)
            {
                idleBytes -= victim.capacity();
                budget.freed(victim.capacity());
                victim.free();
                return true;
            }
        }
        return false;
    }

    /** Frees every idle buffer. Buffers still out are the caller's to return first. */
    @Override
    public void close()
    {
        while (freeOneIdle())
        {
            // keep freeing
        }
    }
}
