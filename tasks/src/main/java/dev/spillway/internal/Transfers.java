package dev.spillway.internal;

import dev.spillway.TaskFailedException;
import dev.spillway.io.CrashPoints;
import dev.spillway.io.DirectIo;
import dev.spillway.io.Store;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DataObject;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.Residency;
import dev.spillway.memory.ResidentObjects;
import dev.spillway.memory.TileBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The IO thread's queue of moves between DRAM and the store, run one per duty cycle in order: a fetch
 * ({@link Residency#TO_MEM}) reads a block into a fresh buffer, or only allocates one; a write-back
 * ({@link Residency#TO_NVM}) writes a dirty object, then frees its buffer unless it is kept. Evictions are queued
 * ahead of the fetches they make room for, so physical DRAM stays within the budget.
 */
final class Transfers
{
    private static final System.Logger LOG = System.getLogger(Transfers.class.getName());

    private final IoAgent agent;
    private final Store store;
    private final BufferPool pool;
    private final DramBudget budget;
    private final ResidentObjects resident;
    private final Counters counters;
    private final Trace trace;
    private final ArrayDeque<DataObject> queue = new ArrayDeque<>();
    private IOException lastSpillFailure;

    Transfers(final IoAgent agent, final Store store, final BufferPool pool, final ResidentObjects resident,
        final Counters counters, final Trace trace)
    {
        this.agent = agent;
        this.store = store;
        this.pool = pool;
        this.budget = pool.budget();
        this.resident = resident;
        this.counters = counters;
        this.trace = trace;
    }

    void enqueue(final DataObject o)
    {
        queue.addLast(o);
    }

    boolean isEmpty()
    {
        return queue.isEmpty();
    }

    int size()
    {
        return queue.size();
    }

    /** Runs the next transfer; returns the bytes it moved or allocated, 0 if there was none. */
    int runOne()
    {
        final DataObject o = queue.pollFirst();
        if (o == null)
        {
            return 0;
        }
        final long start = System.nanoTime();
        final String what;
        if (o.residency() == Residency.TO_MEM)
        {
            what = "fetch ";
            fetch(o);
        }
        else
        {
            what = o.keepAfterWrite() ? "write-behind " : "evict ";
            writeBack(o);
        }
        final long end = System.nanoTime();
        counters.ioNanos.recordValue(end - start);
        if (trace != null)
        {
            trace.record(0, what + o.tag(), "io", start, end);
        }
        return o.size();
    }

    private void fetch(final DataObject o)
    {
        final TileBuffer b = pool.acquire(o.size());
        if (b == null)
        {
            if (budget.releasing() > 0)
            {
                queue.addLast(o);
                return;
            }
            abortFetch(o, "no DRAM to bring '" + o.tag() + "' in, because an eviction could not be written" +
                (lastSpillFailure == null ? "" : ": " + lastSpillFailure.getMessage()), lastSpillFailure);
            return;
        }
        if (o.fetchReads())
        {
            final IoReadEvent event = JfrTypes.IO_READ.isEnabled() ? new IoReadEvent() : null;
            if (event != null)
            {
                event.begin();
            }
            try
            {
                store.read(o.tag(), b.buffer().clear());
            }
            catch (final IOException e)
            {
                pool.release(b);
                abortFetch(o, "cannot read '" + o.tag() + "' from the " + store.name() + " store: " + e.getMessage(),
                    e);
                return;
            }
            if (event != null)
            {
                event.tag = o.tag();
                event.bytes = o.size();
                event.commit();
            }
            counters.reads++;
            counters.bytesRead += o.size();
        }
        o.buffer(b);
        o.residency(Residency.IN_MEM);
        resident.add(o);
        if (o.pinned())
        {
            counters.pinnedCharge += pool.cost(o.size());
        }
        wakeWaiters(o);
    }

    private void abortFetch(final DataObject o, final String message, final Throwable cause)
    {
        budget.uncommit(pool.cost(o.size()));
        o.residency(o.stored() ? Residency.IN_NVM : Residency.UNMATERIALIZED);
        final ArrayList<Object> waiting = new ArrayList<>(o.waiters());
        o.waiters().clear();
        for (final Object w : waiting)
        {
            final TaskRecord t = (TaskRecord)w;
            if (t.status() == TaskStatus.FETCHING)
            {
                agent.fail(t, new TaskFailedException("task '" + t.name + "' could not get its data: " + message,
                    cause));
            }
        }
    }

    private void writeBack(final DataObject o)
    {
        final boolean keep = o.keepAfterWrite();
        final ByteBuffer src = o.buffer().buffer().clear().limit(o.size());
        final IoWriteEvent event = JfrTypes.IO_WRITE.isEnabled() ? new IoWriteEvent() : null;
        if (event != null)
        {
            event.begin();
        }
        try
        {
            CrashPoints.hit(CrashPoints.SPILL_WRITE);
            store.write(o.tag(), src, o.version());
        }
        catch (final IOException e)
        {
            lastSpillFailure = e;
            if (counters.writeFailures++ % 1000 == 0)
            {
                LOG.log(WARNING, "spillway: cannot write '" + o.tag() + "' to the " + store.name() + " store (" +
                    e.getMessage() + "); it stays in DRAM (" + counters.writeFailures + " write failure(s) so far)");
            }
            o.unspillable(true);
            o.residency(Residency.IN_MEM);
            if (!keep)
            {
                budget.endRelease(pool.cost(o.size()), false);
            }
            o.keepAfterWrite(false);
            wakeWaiters(o);
            return;
        }
        finally
        {
            src.clear();
        }
        if (event != null)
        {
            event.tag = o.tag();
            event.bytes = o.size();
            event.writeBehind = keep;
            event.commit();
        }
        counters.writes++;
        counters.bytesWritten += o.size();
        lastSpillFailure = null;
        o.stored(true);
        o.dirty(false);
        if (keep)
        {
            o.residency(Residency.IN_MEM);
            o.keepAfterWrite(false);
            wakeWaiters(o);
            return;
        }
        drop(o);
        o.residency(Residency.IN_NVM);
        budget.endRelease(pool.cost(o.size()), true);
    }

    /** @return the latest failed write-back since the last successful one, or {@code null}. */
    IOException lastSpillFailure()
    {
        return lastSpillFailure;
    }

    /**
     * Replaces the contents of {@code o}, which no task uses, with {@code contents}: in its DRAM buffer, marked dirty,
     * or else in the store, at the same version. {@code contents} is left unchanged.
     */
    void replace(final DataObject o, final ByteBuffer contents) throws IOException
    {
        replaceable(o, contents);
        switch (o.residency())
        {
            case IN_MEM, TO_NVM ->
            {
                o.buffer().buffer().clear().put(contents.duplicate()).clear();
                o.dirty(true);
            }
            case IN_NVM, TO_MEM ->
            {
                final ByteBuffer aligned = DirectIo.alignedBuffer((int)DirectIo.alignUp(o.size()));
                aligned.put(contents.duplicate()).clear();
                store.write(o.tag(), aligned.limit(o.size()), o.version());
                o.stored(true);
            }
            default -> throw new AssertionError("replaceable() lets no " + o.residency() + " object through");
        }
    }

    /**
     * @return {@code o}, once checked that {@link #replace} can put {@code contents} in it.
     * @throws IllegalArgumentException or IllegalStateException naming the object when it cannot.
     */
    static DataObject replaceable(final DataObject o, final ByteBuffer contents)
    {
        if (contents.remaining() != o.size())
        {
            throw new IllegalArgumentException("'" + o.tag() + "' holds " + o.size() + " bytes, not " +
                contents.remaining());
        }
        if (o.residency() == Residency.UNMATERIALIZED)
        {
            throw new IllegalStateException("'" + o.tag() + "' holds no contents here");
        }
        return o;
    }

    /** Removes a block whose contents are garbage, so it holds no disk space. */
    void discard(final DataObject o)
    {
        try
        {
            store.delete(o.tag());
        }
        catch (final IOException e)
        {
            LOG.log(WARNING, "spillway: cannot remove the stale block of '" + o.tag() + "': " + e.getMessage());
        }
    }

    /** Gives the object's buffer back to the pool. */
    void drop(final DataObject o)
    {
        resident.remove(o);
        pool.release(o.buffer(), o.tag());
        o.buffer(null);
    }

    private void wakeWaiters(final DataObject o)
    {
        final ArrayList<Object> waiting = o.waiters();
        for (int i = 0, n = waiting.size(); i < n; i++)
        {
            final TaskRecord t = (TaskRecord)waiting.get(i);
            if (t.status() == TaskStatus.FETCHING && --t.outstanding == 0)
            {
                agent.dataReady(t);
            }
        }
        waiting.clear();
    }
}
