package dev.spillway.ranks;

import dev.spillway.Data;
import dev.spillway.Privilege;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every transfer a program makes on {@code ranks} ranks, worked out from its submissions by the placement rule of
 * {@link DistributedSpillway} (every rank can do this for the whole job, design note F1) without running anything:
 * for each transfer its global submission index, source, target, size and the local sequence numbers of its send and
 * receive halves. The past-to-future analysis reads it to find, for a cut schedule, which transfers would be logged
 * and which ranks would roll back, for more ranks than the machine has.
 *
 * <p>Not thread-safe: one thread submits.
 */
public final class TransferSchedule
{
    private record Declared(String tag, int size) implements Data
    {
    }

    private final int ranks;
    private final Map<Data, Placement> placements = new IdentityHashMap<>();
    private final List<LongList> localEvents = new ArrayList<>();
    private final LongList globalIndex = new LongList();
    private final LongList sendSeq = new LongList();
    private final LongList receiveSeq = new LongList();
    private final LongList endpoints = new LongList();
    private final LongList bytes = new LongList();
    private long submissions;

    /** @param ranks how many ranks the program runs on. */
    public TransferSchedule(final int ranks)
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("ranks must be at least 1, got " + ranks);
        }
        this.ranks = ranks;
        for (int r = 0; r < ranks; r++)
        {
            localEvents.add(new LongList());
        }
    }

    /**
     * Declares an object, as {@link DistributedSpillway#data} does.
     *
     * @param tag   its name.
     * @param size  its size in bytes.
     * @param owner the rank it belongs to.
     * @return its handle for {@link #submit}.
     */
    public Data declare(final String tag, final int size, final int owner)
    {
        if (owner < 0 || owner >= ranks)
        {
            throw new IllegalArgumentException("object '" + tag + "': owner " + owner + " is not a rank of " + ranks);
        }
        final Data data = new Declared(tag, size);
        placements.put(data, new Placement(data, owner, placements.size(), ranks));
        return data;
    }

    /**
     * Submits a task: records the transfers it needs and its place in its rank's local order.
     *
     * @param name       the task's name, for errors.
     * @param data       the objects it accesses.
     * @param privileges how it accesses each.
     */
    public void submit(final String name, final Data[] data, final Privilege[] privileges)
    {
        final long index = submissions++;
        final Placement[] objects = new Placement[data.length];
        for (int i = 0; i < data.length; i++)
        {
            objects[i] = placements.get(data[i]);
            if (objects[i] == null)
            {
                throw new IllegalArgumentException("task '" + name + "': " + data[i] + " was not declared");
            }
            if (privileges[i].readsContents() && objects[i].holder() < 0)
            {
                throw new IllegalArgumentException("task '" + name + "' reads '" + data[i].tag()
                    + "', which no earlier task wrote");
            }
        }
        final int runsOn = Placement.runsOn(objects, privileges, DistributedSpillway.ROOT);
        for (int i = 0; i < objects.length; i++)
        {
            if (Placement.moves(objects, privileges, i, runsOn))
            {
                final int source = objects[i].holder();
                globalIndex.add(index);
                endpoints.add((long) source << 32 | runsOn);
                bytes.add(objects[i].local.size());
                sendSeq.add(event(source, index));
                receiveSeq.add(event(runsOn, index));
                objects[i].received(runsOn);
            }
        }
        event(runsOn, index);
        Placement.ran(objects, privileges, runsOn);
    }

    private long event(final int rank, final long index)
    {
        final LongList events = localEvents.get(rank);
        events.add(index);
        return events.size - 1;
    }

    /** @return how many ranks. */
    public int ranks()
    {
        return ranks;
    }

    /** @return how many tasks were submitted: the global indices run from 0 to this, exclusive. */
    public long submissions()
    {
        return submissions;
    }

    /** @return how many transfers. */
    public int transfers()
    {
        return (int) globalIndex.size;
    }

    /** @return the global index of the task transfer {@code i} is for. */
    public long globalIndex(final int i)
    {
        return globalIndex.get(i);
    }

    /** @return the rank transfer {@code i} leaves. */
    public int source(final int i)
    {
        return (int) (endpoints.get(i) >>> 32);
    }

    /** @return the rank transfer {@code i} goes to. */
    public int target(final int i)
    {
        return (int) endpoints.get(i);
    }

    /** @return the bytes transfer {@code i} moves. */
    public long bytes(final int i)
    {
        return bytes.get(i);
    }

    /** @return the local sequence number of transfer {@code i}'s send task on its source. */
    public long sendSeq(final int i)
    {
        return sendSeq.get(i);
    }

    /** @return the local sequence number of transfer {@code i}'s receive task on its target. */
    public long receiveSeq(final int i)
    {
        return receiveSeq.get(i);
    }

    /** @return how many local tasks (tasks and transfer halves) {@code rank} has for submissions before {@code index}. */
    public long localTasksBefore(final int rank, final long index)
    {
        final LongList events = localEvents.get(rank);
        int low = 0;
        int high = (int) events.size;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            if (events.get(mid) < index)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }

    /** A growable array of longs. */
    private static final class LongList
    {
        private long[] values = new long[64];
        private long size;

        void add(final long value)
        {
            if (size == values.length)
            {
                values = Arrays.copyOf(values, values.length * 2);
            }
            values[(int) size++] = value;
        }

        long get(final long i)
        {
            return values[(int) i];
        }
    }
}
