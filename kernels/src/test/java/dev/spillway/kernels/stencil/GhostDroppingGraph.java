package dev.spillway.kernels.stencil;

import dev.spillway.kernels.graph.GraphProgress;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileBody;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileTaskBuilder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Wraps a graph and loses every update of a ghost after its first write: those writes go to a throw-away buffer, so
 * neighbours keep reading stale ghosts. A broken kernel for verification to catch.
 */
final class GhostDroppingGraph implements TileGraph
{
    private final TileGraph inner;
    private final Set<Tile> written = new HashSet<>();

    GhostDroppingGraph(final TileGraph inner)
    {
        this.inner = inner;
    }

    @Override
    public String name()
    {
        return inner.name();
    }

    @Override
    public Tile tile(final String tag, final int bytes)
    {
        return inner.tile(tag, bytes);
    }

    @Override
    public Tile pinnedTile(final String tag, final int bytes)
    {
        return inner.pinnedTile(tag, bytes);
    }

    @Override
    public TileTaskBuilder task(final String name)
    {
        final List<Tile> read = new ArrayList<>();
        final List<Tile> writes = new ArrayList<>();
        final List<Tile> updated = new ArrayList<>();
        final int[] priority = {0};
        return new TileTaskBuilder()
        {
            @Override
            public TileTaskBuilder read(final Tile... tiles)
            {
                read.addAll(Arrays.asList(tiles));
                return this;
            }

            @Override
            public TileTaskBuilder write(final Tile... tiles)
            {
                writes.addAll(Arrays.asList(tiles));
                return this;
            }

            @Override
            public TileTaskBuilder readWrite(final Tile... tiles)
            {
                updated.addAll(Arrays.asList(tiles));
                return this;
            }

            @Override
            public TileTaskBuilder scratch(final Tile... tiles)
            {
                throw new UnsupportedOperationException("scratch");
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
                final List<Tile> dropped = new ArrayList<>();
                writes.removeIf(t -> t.tag().startsWith("ghost") && !written.add(t) && dropped.add(t));
                inner.task(name).read(read.toArray(new Tile[0])).write(writes.toArray(new Tile[0]))
                    .readWrite(updated.toArray(new Tile[0])).priority(priority[0]).submit(access -> body.run(tile ->
                        dropped.contains(tile) ?
                            ByteBuffer.allocateDirect(tile.size()).order(ByteOrder.nativeOrder()) :
                            access.buffer(tile)));
            }
        };
    }

    @Override
    public void awaitAll()
    {
        inner.awaitAll();
    }

    @Override
    public GraphProgress progress()
    {
        return inner.progress();
    }

    @Override
    public void close()
    {
        inner.close();
    }
}
