package dev.spillway.kernels.stencil;

import dev.spillway.kernels.graph.GraphProgress;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileBody;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileTaskBuilder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A TileGraph that runs each task on submission, on the caller's thread, over direct buffers (read-only for READ):
 * submission order is a valid order, so results equal the engine's. For quick checks of many shapes.
 */
final class SequentialGraph implements TileGraph
{
    /** Tiles declared, in order. */
    final List<Tile> unpinned = new ArrayList<>();
    final List<Tile> pinned = new ArrayList<>();
    /** Each task's priority, in submission order. */
    final List<Integer> priorities = new ArrayList<>();
    private long tasks;

    record HeapTile(String tag, int size, ByteBuffer bytes) implements Tile
    {
    }

    @Override
    public String name()
    {
        return "sequential";
    }

    @Override
    public Tile tile(final String tag, final int bytes)
    {
        final Tile tile = new HeapTile(tag, bytes, ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()));
        unpinned.add(tile);
        return tile;
    }

    @Override
    public Tile pinnedTile(final String tag, final int bytes)
    {
        final Tile tile = new HeapTile(tag, bytes, ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()));
        pinned.add(tile);
        return tile;
    }

    @Override
    public TileTaskBuilder task(final String name)
    {
        final Map<Tile, ByteBuffer> views = new IdentityHashMap<>();
        final int[] priority = {0};
        return new TileTaskBuilder()
        {
            @Override
            public TileTaskBuilder read(final Tile... tiles)
            {
                for (final Tile t : tiles)
                {
                    views.put(t, ((HeapTile)t).bytes().asReadOnlyBuffer().order(ByteOrder.nativeOrder()));
                }
                return this;
            }

            @Override
            public TileTaskBuilder write(final Tile... tiles)
            {
                return readWrite(tiles);
            }

            @Override
            public TileTaskBuilder readWrite(final Tile... tiles)
            {
                for (final Tile t : tiles)
                {
                    views.put(t, ((HeapTile)t).bytes().duplicate().order(ByteOrder.nativeOrder()));
                }
                return this;
            }

            @Override
            public TileTaskBuilder scratch(final Tile... tiles)
            {
                return readWrite(tiles);
            }

            @Override
            public TileTaskBuilder priority(final int p)
            {
                priority[0] = p;
                return this;
            }

            @Override
            public void submit(final TileBody body)
            {
                tasks++;
                priorities.add(priority[0]);
                try
                {
                    body.run(tile ->
                    {
                        final ByteBuffer view = views.get(tile);
                        if (view == null)
                        {
                            throw new IllegalStateException("task '" + name + "' did not declare " + tile.tag());
                        }
                        return view;
                    });
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException("task '" + name + "' failed", e);
                }
            }
        };
    }

    @Override
    public void awaitAll()
    {
    }

    @Override
    public GraphProgress progress()
    {
        return new GraphProgress(tasks, tasks, 0, 0);
    }

    @Override
    public void close()
    {
    }
}
