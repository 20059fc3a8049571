package dev.spillway.resilience;

import dev.spillway.Data;
import dev.spillway.ranks.DistributedSpillway;

import java.nio.ByteBuffer;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A test program over ranks: fills a ring of tiles ({@code "fill i"}), then sweeps them in place, each tile from its
 * ring neighbours ({@code "update i sweep s"}); global index of "update i sweep s" is {@code tiles·(s + 1) + i}.
 */
public final class RingSweeps
{
    private RingSweeps()
    {
    }

    /**
     * @param before told of every update's name as its body starts.
     * @param after  told of every update's name and its tile's buffer once the body computed it.
     */
    public static void submit(final DistributedSpillway ds, final Data[] tiles, final int bytes, final int sweeps,
        final Consumer<String> before, final BiConsumer<String, ByteBuffer> after)
    {
        final int count = tiles.length;
        for (int i = 0; i < count; i++)
        {
            final int tile = i;
            ds.task("fill " + i).write(tiles[i]).submit(ctx ->
            {
                final ByteBuffer b = ctx.buffer(tiles[tile]);
                for (int k = 0; k < bytes; k += 8)
                {
                    b.putLong(k, tile * 1_000_003L + k);
                }
            });
        }
        for (int s = 0; s < sweeps; s++)
        {
            for (int i = 0; i < count; i++)
            {
                final Data me = tiles[i];
                final Data left = tiles[(i + count - 1) % count];
                final Data right = tiles[(i + 1) % count];
                final String name = "update " + i + " sweep " + s;
                ds.task(name).readWrite(me).read(left, right).submit(ctx ->
                {
                    before.accept(name);
                    final ByteBuffer m = ctx.buffer(me);
                    final ByteBuffer l = ctx.buffer(left);
                    final ByteBuffer r = ctx.buffer(right);
                    for (int k = 0; k < bytes; k += 8)
                    {
                        m.putLong(k, m.getLong(k) * 31 + (l.getLong(k) ^ Long.rotateLeft(r.getLong(k), 7)));
                    }
                    after.accept(name, m);
                });
            }
        }
    }
}
