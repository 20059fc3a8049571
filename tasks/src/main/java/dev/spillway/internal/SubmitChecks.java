package dev.spillway.internal;

import dev.spillway.Data;
import dev.spillway.DataNotWrittenException;
import dev.spillway.Privilege;
import dev.spillway.WorkingSetTooLargeException;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.ByteUnits;
import dev.spillway.memory.DramBudget;

import java.util.Arrays;

/**
 * The checks a declaration or a submission passes before the runtime takes it, so that a mistake fails in the
 * caller's thread, naming what to change. It keeps the DRAM room they reason about: bytes pinned by declared objects,
 * and the largest unpinned working set submitted. Methods that say so run under the engine's submit lock.
 */
final class SubmitChecks
{
    private final Engine engine;
    private final BufferPool pool;
    private final DramBudget budget;
    private final long stagingBytes;
    private long pinnedBytes;
    private long largestWorkingSet;

    SubmitChecks(final Engine engine, final BufferPool pool, final long stagingBytes)
    {
        this.engine = engine;
        this.pool = pool;
        this.budget = pool.budget();
        this.stagingBytes = stagingBytes;
    }

    /** Checks a declaration's tag and size. */
    void declaration(final String tag, final int size)
    {
        if (tag == null)
        {
            throw new NullPointerException("data tag is null");
        }
        if (size <= 0)
        {
            throw new IllegalArgumentException("data '" + tag + "': size must be positive, got " + size);
        }
        final int largest = pool.largestSize();
        if (size > largest)
        {
            throw new IllegalArgumentException("data '" + tag + "': " + ByteUnits.format(size) + " is more than the " +
                "largest object a runtime holds, " + largest + " bytes (2 GiB less one " +
                ByteUnits.format(Integer.MAX_VALUE - largest + 1) + " block): split it into tiles");
        }
    }

    /** Under the submit lock: charges a pinned object, if the largest working set submitted still fits beside it. */
    void pin(final String tag, final int size)
    {
        final long cost = pool.cost(size);
        if (pinnedBytes + cost + largestWorkingSet > budget.capacity() - stagingBytes)
        {
            throw new WorkingSetTooLargeException("pinned data '" + tag + "' (" + ByteUnits.format(cost) +
                ") would leave " + ByteUnits.format(budget.capacity() - stagingBytes - pinnedBytes - cost) +
                " of the DRAM budget, less than the largest task submitted so far needs (" +
                ByteUnits.format(largestWorkingSet) + "); " + ByteUnits.format(pinnedBytes) + " are pinned already");
        }
        pinnedBytes += cost;
    }

    /** @return {@code data} as declared by this runtime, for the call {@code what}. */
    DataRef own(final Data data, final String what)
    {
        if (data == null)
        {
            throw new NullPointerException(what + ": data is null");
        }
        if (!(data instanceof DataRef ref) || ref.engine != engine)
        {
            throw new IllegalArgumentException(what + ": '" + data.tag() + "' was not declared by this runtime");
        }
        return ref;
    }

    /** @return the DRAM that task {@code name} needs for {@code refs}, each checked to belong to this runtime. */
    long workingSet(final String name, final DataRef[] refs)
    {
        long workingSet = 0;
        for (final DataRef r : refs)
        {
            if (r.engine != engine)
            {
                throw new IllegalArgumentException("task '" + name + "': data '" + r.tag() +
                    "' belongs to another runtime");
            }
            workingSet += pool.cost(r.size());
        }
        return workingSet;
    }

    /**
     * Under the submit lock: checks that task {@code name}'s unpinned working set fits beside the pinned objects and
     * that every object it reads was written; then records which objects it leaves with contents.
     */
    void submission(final String name, final DataRef[] refs, final Privilege[] privileges, final long workingSet)
    {
        long unpinned = workingSet;
        for (final DataRef r : refs)
        {
            unpinned -= r.object.pinned() ? pool.cost(r.size()) : 0;
        }
        final long room = budget.capacity() - stagingBytes - pinnedBytes;
        if (unpinned > room)
        {
            throw new WorkingSetTooLargeException("task '" + name + "' needs " + ByteUnits.format(workingSet) +
                " of DRAM for " + refs.length + " objects " + Arrays.toString(refs) + " (each charged its size " +
                "rounded up to whole " + ByteUnits.format(pool.alignment()) + " blocks, see Spillway.dramCharge), " +
                "but the DRAM budget leaves " + ByteUnits.format(room) + " (" + ByteUnits.format(budget.capacity()) +
                " minus " + ByteUnits.format(stagingBytes) + " of IO staging minus " + ByteUnits.format(pinnedBytes) +
                " pinned): raise the budget to at least " + ByteUnits.atLeast(budget.capacity() + unpinned - room));
        }
        largestWorkingSet = Math.max(largestWorkingSet, unpinned);
        for (int i = 0; i < refs.length; i++)
        {
            if (privileges[i].readsContents() && !refs[i].hasContents)
            {
                throw new DataNotWrittenException("task '" + name + "' reads '" + refs[i].tag() +
                    "', which no earlier task wrote (or whose last use was SCRATCH)");
            }
        }
        for (int i = 0; i < refs.length; i++)
        {
            if (privileges[i] != Privilege.READ)
            {
                refs[i].hasContents = privileges[i] != Privilege.SCRATCH;
            }
        }
    }
}
