package dev.spillway.memory;

import org.agrona.UnsafeAccess;
import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayDeque;
import java.util.function.Consumer;

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
    private BufferPoison poison;

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
        this.alignment = Math.max(alignment, UnsafeAccess.UNSAFE.pageSize());
    }

    /** @return the buffer capacity for {@code bytes}: rounded up to the alignment (at least a page). */
    public int capacityFor(final int bytes)
    {
        return (bytes + alignment - 1) & -alignment;
    }

    /**
     * Debugging: fill every released buffer with a NaN pattern and check it before reuse or free.
     *
     * @param onViolation told, on the thread that reuses or frees the buffer, what changed a released buffer.
     */
    public void poison(final Consumer<String> onViolation)
    {
        poison = new BufferPoison(onViolation);
    }

    /** @return the alignment buffers get: the store's block size, at least a page. */
    public int alignment()
    {
        return alignment;
    }

    /** @return the largest payload a buffer can hold: {@link Integer#MAX_VALUE} rounded down to the alignment. */
    public int largestSize()
    {
        return Integer.MAX_VALUE & -alignment;
    }

    /** @return the DRAM a buffer for {@code bytes} costs the budget: everything the OS is asked for. */
    public long cost(final int bytes)
    {
        return TileBuffer.cost(capacityFor(bytes), alignment);
    }

    /** @return the budget this pool allocates from. */
    public DramBudget budget()
    {
        return budget;
    }

    /**
     * @param bytes the payload size.
     * @return a buffer of capacity {@code capacityFor(bytes)}, or {@code null} if the budget has no room even
     *         after freeing idle buffers of other sizes.
     */
    public TileBuffer acquire(final int bytes)
    {
        final int size = capacityFor(bytes);
        final ArrayDeque<TileBuffer> free = idle.get(size);
        if (free != null && !free.isEmpty())
        {
            idleBytes -= size;
            final TileBuffer reused = free.pop();
            if (poison != null)
            {
                poison.check(reused);
            }
            return reused;
        }
        final long cost = cost(bytes);
        while (!budget.tryAllocate(cost))
        {
            if (!freeOneIdle())
            {
                return null;
            }
        }
        try
        {
            return new TileBuffer(size, alignment);
        }
        catch (final OutOfMemoryError e)
        {
            budget.freed(cost);
            throw e;
        }
    }

    /** Returns a buffer for reuse. */
    public void release(final TileBuffer buffer)
    {
        release(buffer, null);
    }

    /**
     * Returns a buffer for reuse.
     *
     * @param lastUser what the buffer held, for a poisoning report; may be null.
     */
    public void release(final TileBuffer buffer, final String lastUser)
    {
        if (poison != null)
        {
            poison.fill(buffer, lastUser);
        }
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
                if (poison != null)
                {
                    poison.check(victim);
                }
                budget.freed(TileBuffer.cost(victim.capacity(), alignment));
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
