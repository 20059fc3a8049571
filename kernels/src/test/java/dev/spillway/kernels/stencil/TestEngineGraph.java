package dev.spillway.kernels.stencil;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayStats;
import dev.spillway.TaskBuilder;
import dev.spillway.kernels.graph.GraphProgress;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileBody;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileTaskBuilder;

import java.util.concurrent.atomic.AtomicLong;

/** A minimal TileGraph over a Spillway runtime, for these tests until the shared engine adapter lands. */
final class TestEngineGraph implements TileGraph
{
    private final Spillway spillway;
    private final AtomicLong submitted = new AtomicLong();

    TestEngineGraph(final Spillway spillway)
    {
        this.spillway = spillway;
    }

    record EngineTile(Data data) implements Tile
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

    @Override
    public String name()
    {
        return "spillway";
    }

    @Override
    public Tile tile(final String tag, final int bytes)
    {
        return new EngineTile(spillway.data(tag, bytes));
    }

    @Override
    public Tile pinnedTile(final String tag, final int bytes)
    {
        return new EngineTile(spillway.pinnedData(tag, bytes));
    }

    @Override
    public TileTaskBuilder task(final String name)
    {
        final TaskBuilder task = spillway.task(name);
        return new TileTaskBuilder()
        {
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
                task.submit(ctx -> body.run(tile -> ctx.buffer(((EngineTile)tile).data())));
                submitted.incrementAndGet();
            }
        };
    }

    private static Data[] data(final Tile[] tiles)
    {
        final Data[] data = new Data[tiles.length];
        for (int i = 0; i < tiles.length; i++)
        {
            data[i] = ((EngineTile)tiles[i]).data();
        }
        return data;
    }

    @Override
    public void awaitAll()
    {
        spillway.awaitAll();
    }

    @Override
    public GraphProgress progress()
    {
        final SpillwayStats stats = spillway.stats();
        return new GraphProgress(submitted.get(), stats.tasksCompleted(), stats.nvmBytesRead(),
            stats.nvmBytesWritten());
    }

    @Override
    public void close()
    {
        spillway.close();
    }
}
