package dev.spillway.kernels.mmap;

import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileAccess;
import dev.spillway.Privilege;
import dev.spillway.PrivilegeViolationException;
import dev.spillway.TaskFailedException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.concurrent.BlockingQueue;

/**
 * A worker thread of a {@link MappedGraph}: takes ready tasks, runs them, and releases their successors. It is also
 * the running task's {@link TileAccess}; scratch tiles are slices of one direct buffer it reuses across tasks.
 */
final class MappedWorker implements Runnable, TileAccess
{
    /** Tells a worker to stop; queued once per worker after the last task. */
    static final MappedTask STOP = new MappedTask("stop", null, new MappedTile[0], new Privilege[0]);

    private static final int SCRATCH_ALIGNMENT = 64;

    private final MappedGraph graph;
    private final BlockingQueue<MappedTask> queue;
    private final ArrayList<MappedTask> ready = new ArrayList<>();
    private ByteBuffer scratch = ByteBuffer.allocateDirect(0);
    private int[] scratchOffsets = new int[8];
    private MappedTask current;

    MappedWorker(final MappedGraph graph, final BlockingQueue<MappedTask> queue)
    {
        this.graph = graph;
        this.queue = queue;
    }

    @Override
    public void run()
    {
        try
        {
            MappedTask task;
            while ((task = queue.take()) != STOP)
            {
                graph.finished(task, execute(task), ready);
                queue.addAll(ready);
                ready.clear();
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public ByteBuffer buffer(final Tile tile)
    {
        final MappedTask task = current;
        if (task == null)
        {
            throw new IllegalStateException("tile '" + tile.tag() + "' asked for outside a running task");
        }
        for (int i = 0; i < task.tiles.length; i++)
        {
            if (task.tiles[i] == tile)
            {
                final Privilege p = task.privileges[i];
                return p == Privilege.SCRATCH ?
                    scratch.slice(scratchOffsets[i], tile.size()).order(ByteOrder.nativeOrder()) :
                    task.tiles[i].view(p == Privilege.READ);
            }
        }
        throw new PrivilegeViolationException("task '" + task.name + "' did not declare tile '" + tile.tag() + "'");
    }

    /** @return the task's failure, or {@code null} if it ran to completion. */
    private TaskFailedException execute(final MappedTask task)
    {
        final MappedTile poisoned = task.poisonedInput();
        if (poisoned != null)
        {
            return new TaskFailedException("task '" + task.name + "' not run: its input '" + poisoned.tag() +
                "' was to be produced by failed task '" + poisoned.poisonedBy.name + "'");
        }
        try
        {
            layOutScratch(task);
            current = task;
            task.body.run(this);
            return null;
        }
        catch (final Throwable t)
        {
            return new TaskFailedException("task '" + task.name + "' failed: " + t, t);
        }
        finally
        {
            current = null;
        }
    }

    private void layOutScratch(final MappedTask task)
    {
        if (scratchOffsets.length < task.tiles.length)
        {
            scratchOffsets = new int[task.tiles.length];
        }
        long end = 0;
        for (int i = 0; i < task.tiles.length; i++)
        {
            if (task.privileges[i] == Privilege.SCRATCH)
            {
                scratchOffsets[i] = (int)end;
                end = (end + task.tiles[i].size() + SCRATCH_ALIGNMENT - 1) & -SCRATCH_ALIGNMENT;
            }
        }
        if (end > scratch.capacity())
        {
            if (end > Integer.MAX_VALUE)
            {
                throw new IllegalArgumentException("task '" + task.name + "' declares " + end +
                    " B of scratch tiles, more than one buffer holds");
            }
            scratch = ByteBuffer.allocateDirect((int)end);
        }
    }
}
