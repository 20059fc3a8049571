package dev.spillway.kernels.graph;

import dev.spillway.CloseMode;
import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayStats;
import dev.spillway.TaskBuilder;
import dev.spillway.TaskFailedException;
import dev.spillway.TaskRuntime;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.RankStats;

import java.util.concurrent.atomic.AtomicLong;

/** A {@link TileGraph} on the Spillway engine: tiles are {@link Data} objects and tasks are engine tasks. */
public final class EngineGraph implements TileGraph
{
    private final TaskRuntime runtime;
    private final Spillway spillway;
    private final AtomicLong submitted = new AtomicLong();

    /**
     * @param runtime one runtime, or this rank of several: tiles are placed by their {@link Home}, and
     *                {@link #awaitAll()} is then collective. {@link #close()} closes it (not a rank's transport).
     */
    public EngineGraph(final TaskRuntime runtime)
    {
        this.runtime = runtime;
        this.spillway = runtime.local();
    }

    @Override
    public String name()
    {
        return "spillway";
    }

    @Override
    public Tile tile(final String tag, final int bytes)
    {
        return tile(tag, bytes, Home.ROOT);
    }

    @Override
    public Tile pinnedTile(final String tag, final int bytes)
    {
        return pinnedTile(tag, bytes, Home.ROOT);
    }

    @Override
    public Tile tile(final String tag, final int bytes, final Home home)
    {
        return new EngineTile(runtime.data(tag, bytes, home.rank(runtime.ranks())));
    }

    @Override
    public Tile pinnedTile(final String tag, final int bytes, final Home home)
    {
        return new EngineTile(runtime.pinnedData(tag, bytes, home.rank(runtime.ranks())));
    }

    @Override
    public TileTaskBuilder task(final String name)
    {
        return new Builder(runtime.task(name));
    }

    /**
     * Waits for every submitted task, failing as {@link Spillway#awaitAll()} does. On several ranks it then waits for
     * every rank to get here (a failed rank does not wait: it fails, and its peers see it lost).
     *
     * @throws TaskFailedException naming the first failed task.
     */
    @Override
    public void awaitAll()
    {
        runtime.awaitAll();
    }

    /** Tasks submitted through this graph; tasks finished and NVMe traffic from {@link Spillway#stats()}. */
    @Override
    public GraphProgress progress()
    {
        final SpillwayStats stats = spillway.stats();
        return new GraphProgress(submitted.get(), stats.tasksCompleted() + stats.tasksFailed(), stats.nvmBytesRead(),
            stats.nvmBytesWritten());
    }

    /** @return what the runtime charges its DRAM budget for an object of {@code bytes}; see {@link Spillway#dramCharge}. */
    public long dramCharge(final int bytes)
    {
        return spillway.dramCharge(bytes);
    }

    /** @return the runtime's counters (this rank's, on several ranks). */
    public dev.spillway.SpillwayStats stats()
    {
        return spillway.stats();
    }

    /** Marks the phase in this runtime's trace; see {@link Spillway#tracePhase}. */
    @Override
    public void phase(final String name)
    {
        spillway.tracePhase(name);
    }

    @Override
    public void endCheckpoints()
    {
        spillway.stopCheckpoints();
    }

    /** @return what checkpointing did, and what a restart restored. */
    public dev.spillway.checkpoint.CheckpointReport checkpointReport()
    {
        return spillway.checkpointReport();
    }

    /** @return what this rank ran and moved, or null on one rank. */
    public RankStats rankStats()
    {
        return runtime instanceof DistributedSpillway ranks ? ranks.stats() : null;
    }

    /**
     * Closes the runtime at once: tasks not yet running fail as cancelled, running ones finish, the spill files are
     * removed and an unfinished checkpoint generation is abandoned (the last committed one stays). On several ranks
     * only this rank's runtime closes; the transport stays open.
     */
    public void cancel()
    {
        spillway.close(CloseMode.CANCEL);
    }

    /** Closes the runtime, which first runs every submitted task. */
    @Override
    public void close()
    {
        runtime.close();
    }

    private static Data data(final Tile tile)
    {
        if (tile instanceof EngineTile t)
        {
            return t.data;
        }
        throw new IllegalArgumentException("tile '" + tile.tag() + "' was not declared on a spillway graph");
    }

    private static Data[] data(final Tile[] tiles)
    {
        final Data[] data = new Data[tiles.length];
        for (int i = 0; i < tiles.length; i++)
        {
            data[i] = data(tiles[i]);
        }
        return data;
    }

    /** A tile backed by an engine data object. */
    private record EngineTile(Data data) implements Tile
    {
        @Override
        public String tag()
        {
            return data.tag();
        }

        @Override
        public int size()
        {
            return data.size();
        }
    }

    /** Declares through an engine task builder. */
    private final class Builder implements TileTaskBuilder
    {
        private final TaskBuilder task;

        Builder(final TaskBuilder task)
        {
            this.task = task;
        }

        @Override
        public TileTaskBuilder read(final Tile... tiles)
        {
            task.read(data(tiles));
            return this;
        }

        @Override
        public TileTaskBuilder write(final Tile... tiles)
        {
            task.write(data(tiles));
            return this;
        }

        @Override
        public TileTaskBuilder readWrite(final Tile... tiles)
        {
            task.readWrite(data(tiles));
            return this;
        }

        @Override
        public TileTaskBuilder scratch(final Tile... tiles)
        {
            task.scratch(data(tiles));
            return this;
        }

        @Override
        public TileTaskBuilder priority(final int priority)
        {
            task.priority(priority);
            return this;
        }

        @Override
        public void submit(final TileBody body)
        {
            task.submit(ctx -> body.run(tile -> ctx.buffer(data(tile))));
            submitted.incrementAndGet();
        }
    }
}
