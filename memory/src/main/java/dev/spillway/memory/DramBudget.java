package dev.spillway.memory;

/**
 * The hard DRAM cap. One writer (the IO thread) moves the numbers; any thread may read them.
 *
 * <p>{@code committed} counts bytes promised to data objects (held, being read, or being written back) and staging;
 * {@code releasing} counts the part of it whose write-back is in flight and will be returned. Admission asks
 * {@link #available()}, which is {@code capacity - committed + releasing}. Physical allocation, by the pool, is
 * separately kept at or below {@code capacity}.
 */
public final class DramBudget
{
    private final long capacity;
    private volatile long committed;
    private volatile long releasing;
    private volatile long physical;
    private volatile long peakPhysical;

    /** @param capacity the cap in bytes; must be positive. */
    public DramBudget(final long capacity)
    {
        if (capacity <= 0)
        {
            throw new IllegalArgumentException("DRAM budget must be positive, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** @return the cap in bytes. */
    public long capacity()
    {
        return capacity;
    }

    /** @return bytes admission may still promise. */
    public long available()
    {
        return capacity - committed + releasing;
    }

    /** @return committed bytes whose write-back is in flight and that will come back. */
    public long releasing()
    {
        return releasing;
    }

    /** @return bytes promised to objects and staging. */
    public long committed()
    {
        return committed;
    }

    /** @return bytes of off-heap buffers allocated right now, pooled ones included. */
    public long physical()
    {
        return physical;
    }

    /** @return the highest {@link #physical()} seen. */
    public long peakPhysical()
    {
        return peakPhysical;
    }

    /** Promises {@code bytes}; the caller has checked {@link #available()}. */
    public void commit(final long bytes)
    {
        committed += bytes;
    }

    /** Returns {@code bytes} promised earlier. */
    public void uncommit(final long bytes)
    {
        committed -= bytes;
    }

    /** Marks {@code bytes} of committed memory as being released by an in-flight write-back. */
    public void startRelease(final long bytes)
    {
        releasing += bytes;
    }

    /** Ends a release started by {@link #startRelease}: {@code returned} says whether the bytes came back. */
    public void endRelease(final long bytes, final boolean returned)
    {
        releasing -= bytes;
        if (returned)
        {
            committed -= bytes;
        }
    }

    /** Charges {@code bytes} of IO staging memory held outside the pool, for the life of the budget. */
    public void chargeStaging(final long bytes)
    {
        if (!tryAllocate(bytes))
        {
            throw new IllegalArgumentException("IO staging of " + ByteUnits.format(bytes) + " does not fit the DRAM " +
                "budget of " + ByteUnits.format(capacity));
        }
        committed += bytes;
    }

    boolean tryAllocate(final long bytes)
    {
        if (physical + bytes > capacity)
        {
            return false;
        }
        physical += bytes;
        if (physical > peakPhysical)
        {
            peakPhysical = physical;
        }
        return true;
    }

    void freed(final long bytes)
    {
        physical -= bytes;
    }
}
