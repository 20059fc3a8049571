package dev.spillway.examples;

import dev.spillway.Acquired;
import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.TaskHandle;

import java.nio.DoubleBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One out-of-core Gram computation as a Spillway task graph. Tiles {@code X[t]} hold {@code rowsPerTile} rows each;
 * partials {@code G[t]} hold a tile's XᵀX followed by its column sums.
 */
final class OutOfCoreGram
{
    private static final AtomicInteger RUNS = new AtomicInteger();

    /** A partial covering tiles {@code first .. first + count - 1}. */
    private record Partial(Data data, int first, int count)
    {
        String label()
        {
            return count == 1 ? "G[" + first + "]" : "G[" + first + ".." + (first + count - 1) + "]";
        }
    }

    private final Spillway sw;
    private final RowSource source;
    private final int rowsPerTile;
    private final int columns;
    private final int partialBytes;
    // Tags must be unique within a runtime: a prefix per run lets one runtime compute several Gram matrices.
    private final String prefix = "gram" + RUNS.incrementAndGet() + ".";
    private final List<Partial> pending = new ArrayList<>();

    OutOfCoreGram(final Spillway sw, final RowSource source, final int rowsPerTile)
    {
        this.sw = sw;
        this.source = source;
        this.rowsPerTile = rowsPerTile;
        this.columns = source.columns();
        final long tileBytes = (long)rowsPerTile * columns * Double.BYTES;
        final long partialBytes = ((long)columns * columns + columns) * Double.BYTES;
        if (rowsPerTile <= 0 || tileBytes > Integer.MAX_VALUE || partialBytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("a tile of " + rowsPerTile + " rows x " + columns + " columns (" +
                tileBytes + " B) and its partial (" + partialBytes + " B) must each hold 1 to 2^31-1 bytes");
        }
        this.partialBytes = (int)partialBytes;
    }

    GramResult run()
    {
        // Two staging blocks: the producer fills one from the stream while a WRITE task copies the other into its
        // tile, so the heap never holds more than two tiles of the table.
        final double[][] staging = {new double[rowsPerTile * columns], new double[rowsPerTile * columns]};
        final TaskHandle[] copies = new TaskHandle[2];
        final double[] row = new double[columns];
        long rows = 0;
        int tile = 0;
        int filled;
        do
        {
            final int slot = tile & 1;
            if (copies[slot] != null)
            {
                copies[slot].join();
            }
            final double[] stage = staging[slot];
            filled = 0;
            while (filled < rowsPerTile && source.next(row))
            {
                System.arraycopy(row, 0, stage, filled * columns, columns);
                filled++;
            }
            if (filled > 0)
            {
                copies[slot] = submitTile(tile, stage, filled);
                rows += filled;
                tile++;
            }
        }
        while (filled == rowsPerTile);

        if (rows == 0)
        {
            return new GramResult(0, new double[columns], new double[columns][columns]);
        }
        while (pending.size() > 1)
        {
            mergeLastTwo();
        }
        return readBack(pending.get(0).data(), rows);
    }

    /** Copies a staged row block into a new tile, computes its partial, and merges partials as the tree allows. */
    private TaskHandle submitTile(final int tile, final double[] stage, final int tileRows)
    {
        final Data x = sw.data(prefix + "X[" + tile + "]", tileRows * columns * Double.BYTES);
        final TaskHandle copy = sw.task("fill X[" + tile + "]").write(x)
            .submit(ctx -> ctx.buffer(x).asDoubleBuffer().put(stage, 0, tileRows * columns));

        final Data g = sw.data(prefix + "G[" + tile + "]", partialBytes);
        sw.task("G[" + tile + "] = X[" + tile + "]ᵀX[" + tile + "]").read(x).write(g)
            .submit(ctx -> partial(ctx.buffer(x).asDoubleBuffer(), tileRows, ctx.buffer(g).asDoubleBuffer()));
        sw.discard(x);

        // Reduction: a pairwise tree, grown like a binary counter as tiles arrive. Two partials are merged as soon as
        // they cover equally many tiles, so merges of disjoint subtrees are independent and interleave with the
        // partial products on both workers, the tree stays log2(tiles) deep, and its summation order is fixed by
        // the tile count alone (results repeat bit for bit). A chain into one accumulator would order every merge
        // behind the previous one.
        pending.add(new Partial(g, tile, 1));
        while (pending.size() > 1 && lastTwoCoverEqualTiles())
        {
            mergeLastTwo();
        }
        return copy;
    }

    private boolean lastTwoCoverEqualTiles()
    {
        return pending.get(pending.size() - 1).count() == pending.get(pending.size() - 2).count();
    }

    /** Replaces the two most recent partials by their sum, accumulated into the older one. */
    private void mergeLastTwo()
    {
        final Partial right = pending.remove(pending.size() - 1);
        final Partial left = pending.remove(pending.size() - 1);
        final Data into = left.data();
        final Data from = right.data();
        final int values = partialBytes / Double.BYTES;
        sw.task(left.label() + " += " + right.label()).readWrite(into).read(from).submit(ctx ->
        {
            final DoubleBuffer sum = ctx.buffer(into).asDoubleBuffer();
            final DoubleBuffer add = ctx.buffer(from).asDoubleBuffer();
            for (int k = 0; k < values; k++)
            {
                sum.put(k, sum.get(k) + add.get(k));
            }
        });
        sw.discard(from);
        pending.add(new Partial(into, left.first(), left.count() + right.count()));
    }

    /** Writes the upper triangle of the tile's XᵀX, mirrored, then its column sums. */
    private void partial(final DoubleBuffer x, final int tileRows, final DoubleBuffer out)
    {
        final double[] gram = new double[columns * columns];
        final double[] sums = new double[columns];
        final double[] row = new double[columns];
        for (int r = 0; r < tileRows; r++)
        {
            x.get(r * columns, row);
            for (int i = 0; i < columns; i++)
            {
                final double xi = row[i];
                sums[i] += xi;
                final int base = i * columns;
                for (int j = i; j < columns; j++)
                {
                    gram[base + j] += xi * row[j];
                }
            }
        }
        for (int i = 0; i < columns; i++)
        {
            for (int j = 0; j < i; j++)
            {
                gram[i * columns + j] = gram[j * columns + i];
            }
        }
        out.put(gram).put(sums);
    }

    private GramResult readBack(final Data root, final long rows)
    {
        final double[] values = new double[partialBytes / Double.BYTES];
        try (Acquired view = sw.acquire(root))
        {
            view.buffer().asDoubleBuffer().get(values);
        }
        final double[][] gram = new double[columns][];
        for (int i = 0; i < columns; i++)
        {
            gram[i] = Arrays.copyOfRange(values, i * columns, (i + 1) * columns);
        }
        return new GramResult(rows, Arrays.copyOfRange(values, columns * columns, values.length), gram);
    }
}
