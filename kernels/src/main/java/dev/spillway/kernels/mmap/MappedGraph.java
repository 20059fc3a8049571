package dev.spillway.kernels.mmap;

import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileTaskBuilder;
import dev.spillway.kernels.graph.TileBody;
import dev.spillway.kernels.graph.GraphProgress;
import dev.spillway.Privilege;
import dev.spillway.StallException;
import dev.spillway.TaskFailedException;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The mmap baseline: the same kernels on tiles mapped from one sparse file, with the operating system doing the
 * paging (seed 003, section 6.3). There is no DRAM budget and no flush: the OS decides what stays resident and
 * when dirty pages are written back. Pinned tiles are anonymous direct buffers, as ghost layers stay in
 * DRAM in both runs; scratch tiles are slices of a direct buffer per worker.
 *
 * <p>Dependencies follow from submission order as in Spillway; priorities are ignored and ready tasks run in the
 * order they became ready. A failed task poisons its outputs: tasks that would read them fail without running.
 */
public final class MappedGraph implements TileGraph
{
    private static final long CHUNK_BYTES = 1L << 30;

    private final TileFile file;
    private final DependencyTracker tracker = new DependencyTracker();
    private final BlockingQueue<MappedTask> queue = new LinkedBlockingQueue<>();
    private final Thread[] workers;
    private final Set<String> tags = new HashSet<>();
    private final AtomicReference<TaskFailedException> firstFailure = new AtomicReference<>();
    private final long[] ioAtOpen = ProcIo.read();
    private boolean closed;

    /**
     * @param dir     directory for the tile file, which {@link #close()} deletes.
     * @param workers threads that run task bodies.
     */
    public MappedGraph(final Path dir, final int workers)
    {
        this(dir, workers, CHUNK_BYTES);
    }

    MappedGraph(final Path dir, final int workers, final long chunkBytes)
    {
        if (workers < 1)
        {
            throw new IllegalArgumentException("workers must be at least 1, not " + workers);
        }
        file = new TileFile(dir, chunkBytes);
        this.workers = new Thread[workers];
        for (int i = 0; i < workers; i++)
        {
            final Thread t = new Thread(new MappedWorker(this, queue), "mmap-worker-" + i);
            t.setDaemon(true);
            this.workers[i] = t;
            t.start();
        }
    }

    @Override
    public String name()
    {
        return "mmap";
    }

    @Override
    public Tile tile(final String tag, final int bytes)
    {
        return declare(tag, bytes, false);
    }

    @Override
    public Tile pinnedTile(final String tag, final int bytes)
    {
        return declare(tag, bytes, true);
    }

    @Override
    public TileTaskBuilder task(final String name)
    {
        return new MappedTaskBuilder(this, name);
    }

    /**
     * Waits for every submitted task, then rethrows the first task failure not reported before.
     *
     * @throws TaskFailedException naming the first failed task.
     */
    @Override
    public void awaitAll()
    {
        try
        {
            tracker.awaitIdle();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new StallException("interrupted while waiting for " +
                (tracker.submitted() - tracker.finished()) + " task(s)", e);
        }
        final TaskFailedException failure = firstFailure.getAndSet(null);
        if (failure != null)
        {
            throw new TaskFailedException(failure.getMessage(), failure);
        }
    }

    /** Tasks submitted and finished; bytes this process read from and dirtied for block devices since it opened. */
    @Override
    public GraphProgress progress()
    {
        final long[] io = ProcIo.read();
        return new GraphProgress(tracker.submitted(), tracker.finished(), Math.max(0, io[0] - ioAtOpen[0]),
            Math.max(0, io[1] - ioAtOpen[1]));
    }

    /** Runs every submitted task, stops the workers and deletes the tile file. Idempotent. */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        boolean interrupted = false;
        try
        {
            tracker.awaitIdle();
            for (final Thread ignored : workers)
            {
                queue.add(MappedWorker.STOP);
            }
            for (final Thread t : workers)
            {
                t.join();
            }
        }
        catch (final InterruptedException e)
        {
            interrupted = true;
        }
        finally
        {
            file.delete();
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    void submit(final MappedTask task)
    {
        checkOpen();
        if (tracker.submit(task))
        {
            queue.add(task);
        }
    }

    /** Worker: records the outcome of {@code task} and collects the successors it released into {@code ready}. */
    void finished(final MappedTask task, final TaskFailedException failure, final ArrayList<MappedTask> ready)
    {
        if (failure != null)
        {
            firstFailure.compareAndSet(null, failure);
        }
        tracker.finish(task, failure != null, ready);
    }

    private synchronized Tile declare(final String tag, final int bytes, final boolean pinned)
    {
        checkOpen();
        if (bytes < 0)
        {
            throw new IllegalArgumentException("tile '" + tag + "' has a negative size: " + bytes);
        }
        if (!tags.add(tag))
        {
            throw new IllegalArgumentException("tile '" + tag + "' is declared twice");
        }
        final ByteBuffer bytesOf = pinned ? ByteBuffer.allocateDirect(bytes) : file.allocate(tag, bytes);
        return new MappedTile(this, tag, bytesOf);
    }

    private synchronized void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("mmap graph is closed");
        }
    }

    /** Declares one task's tiles; priorities are accepted and ignored. */
    private static final class MappedTaskBuilder implements TileTaskBuilder
    {
        private final MappedGraph graph;
        private final String name;
        private final ArrayList<MappedTile> tiles = new ArrayList<>(4);
        private final ArrayList<Privilege> privileges = new ArrayList<>(4);

        MappedTaskBuilder(final MappedGraph graph, final String name)
        {
            this.graph = graph;
            this.name = name;
        }

        @Override
        public TileTaskBuilder read(final Tile... tiles)
        {
            return declare(tiles, Privilege.READ);
        }

        @Override
        public TileTaskBuilder write(final Tile... tiles)
        {
            return declare(tiles, Privilege.WRITE);
        }

        @Override
        public TileTaskBuilder readWrite(final Tile... tiles)
        {
            return declare(tiles, Privilege.READ_WRITE);
        }

        @Override
        public TileTaskBuilder scratch(final Tile... tiles)
        {
            return declare(tiles, Privilege.SCRATCH);
        }

        @Override
        public TileTaskBuilder priority(final int priority)
        {
            return this;
        }

        @Override
        public void submit(final TileBody body)
        {
            if (body == null)
            {
                throw new NullPointerException("task '" + name + "' has no body");
            }
            graph.submit(new MappedTask(name, body, tiles.toArray(new MappedTile[0]),
                privileges.toArray(new Privilege[0])));
        }

        private TileTaskBuilder declare(final Tile[] declared, final Privilege privilege)
        {
            for (final Tile tile : declared)
            {
                if (!(tile instanceof MappedTile t) || t.graph != graph)
                {
                    throw new IllegalArgumentException("task '" + name + "': tile '" + tile.tag() +
                        "' was not declared on this mmap graph");
                }
                if (tiles.contains(t))
                {
                    throw new IllegalArgumentException("task '" + name + "' declares tile '" + t.tag() + "' twice");
                }
                tiles.add(t);
                privileges.add(privilege);
            }
            return this;
        }
    }
}
