package dev.spillway.kernels.mmap;

import dev.spillway.DataNotWrittenException;
import dev.spillway.Privilege;

import java.util.ArrayList;

/**
 * Infers dependencies from submission order as Spillway does: a task waits for the last exclusive user of each of
 * its tiles (read-after-write, write-after-write), and an exclusive user waits for every reader since
 * (write-after-read). {@code READ_WRITE}, {@code WRITE} and {@code SCRATCH} are exclusive. One monitor guards the
 * graph; tasks are coarse, so it is held briefly and rarely contended.
 */
final class DependencyTracker
{
    static final int READER_PRUNE = 64;

    private long submitted;
    private long finished;

    /**
     * Records {@code task} after every earlier submission.
     *
     * @return true if it has no unfinished predecessor and may run now.
     * @throws DataNotWrittenException if it reads a tile that no earlier task wrote.
     */
    synchronized boolean submit(final MappedTask task)
    {
        for (int i = 0; i < task.tiles.length; i++)
        {
            if (task.privileges[i].readsContents() && !task.tiles[i].written)
            {
                throw new DataNotWrittenException("task '" + task.name + "' reads tile '" + task.tiles[i].tag() +
                    "', which no earlier task writes");
            }
        }
        submitted++;
        for (int i = 0; i < task.tiles.length; i++)
        {
            final MappedTile tile = task.tiles[i];
            final MappedTask writer = tile.lastWriter;
            if (writer != null && !writer.done)
            {
                edge(writer, task);
            }
            if (task.privileges[i] == Privilege.READ)
            {
                if (tile.readers.size() >= tile.readerPruneAt)
                {
                    tile.readers.removeIf(r -> r.done);
                    tile.readerPruneAt = Math.max(READER_PRUNE, 2 * tile.readers.size());
                }
                tile.readers.add(task);
            }
            else
            {
                for (final MappedTask reader : tile.readers)
                {
                    if (!reader.done)
                    {
                        edge(reader, task);
                    }
                }
                tile.readers.clear();
                tile.readerPruneAt = READER_PRUNE;
                tile.lastWriter = task;
                tile.written |= task.privileges[i] == Privilege.WRITE;
            }
        }
        return task.pending == 0;
    }

    /**
     * Marks {@code task} finished: its outputs are valid, or poisoned when it failed or did not run.
     *
     * @param ready receives the successors that have no unfinished predecessor left.
     */
    synchronized void finish(final MappedTask task, final boolean failed, final ArrayList<MappedTask> ready)
    {
        task.done = true;
        task.body = null;
        finished++;
        for (int i = 0; i < task.tiles.length; i++)
        {
            final Privilege p = task.privileges[i];
            if (failed && p != Privilege.READ)
            {
                task.tiles[i].poisonedBy = task;
            }
            else if (p.producesContents())
            {
                task.tiles[i].poisonedBy = null;
            }
        }
        if (task.successors != null)
        {
            for (final MappedTask s : task.successors)
            {
                if (--s.pending == 0)
                {
                    ready.add(s);
                }
            }
            task.successors = null;
        }
        if (finished == submitted)
        {
            notifyAll();
        }
    }

    /** Waits until every submitted task finished. */
    synchronized void awaitIdle() throws InterruptedException
    {
        while (finished < submitted)
        {
            wait();
        }
    }

    synchronized long submitted()
    {
        return submitted;
    }

    synchronized long finished()
    {
        return finished;
    }

    private static void edge(final MappedTask from, final MappedTask to)
    {
        if (from.successors == null)
        {
            from.successors = new ArrayList<>(4);
        }
        from.successors.add(to);
        to.pending++;
    }
}
