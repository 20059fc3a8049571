package dev.spillway.internal;

import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DataObject;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The DRAM cost of the declared objects whose contents may still be read: the most their data can ask of the budget.
 * While it fits, no object ever needs writing back, so write-behind has nothing to prepare for. Declarations add on
 * the caller's thread; the IO thread moves objects in and out as tasks define or drop their contents.
 */
final class LiveData
{
    private final BufferPool pool;
    private final long room;
    private final AtomicLong bytes = new AtomicLong();

    LiveData(final BufferPool pool, final long stagingBytes)
    {
        this.pool = pool;
        this.room = pool.budget().capacity() - stagingBytes;
    }

    /** A new object: its contents are yet to be written, so they count. */
    void declared(final int size)
    {
        bytes.addAndGet(pool.cost(size));
    }

    /** IO thread: marks {@code o}'s contents dead (discardable) or defined, counting the change. */
    void contents(final DataObject o, final boolean dead)
    {
        if (o.discardable() != dead)
        {
            o.discardable(dead);
            bytes.addAndGet(dead ? -pool.cost(o.size()) : pool.cost(o.size()));
        }
    }

    /** @return whether the live data could outgrow the budget, so that an eviction may one day need a write. */
    boolean mayOutgrowBudget()
    {
        return bytes.get() > room;
    }
}
