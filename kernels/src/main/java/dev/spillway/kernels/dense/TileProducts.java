package dev.spillway.kernels.dense;

import dev.spillway.kernels.graph.Home;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileTaskBuilder;

import java.nio.ByteBuffer;
import java.util.function.Function;
import java.util.function.IntToDoubleFunction;

/**
 * Matrix-vector products formed tile by tile for Freivalds-style checks: each partial {@code M[ti,tj]·v[tj]} is a
 * small object on the rank holding its tile, so no tile moves; rank 0 gathers the sums.
 */
final class TileProducts
{
    /** Which part of a diagonal tile a product uses. */
    enum Shape
    {
        FULL,
        /** The upper triangle, diagonal included (U of an LU). */
        UPPER,
        /** The strict lower triangle and a unit diagonal (L of an LU). */
        UNIT_LOWER
    }

    private final TileMatrix m;
    private final int t;

    TileProducts(final TileMatrix m)
    {
        this.m = m;
        this.t = m.t;
    }

    /** @return entry {@code index} of the pseudo-random probe vector of {@code seed}, uniform in [-1, 1). */
    static double probe(final long seed, final long index)
    {
        return TileMatrix.entry(~seed, index, -1);
    }

    /**
     * Submits the partial {@code M[ti,tj]·v} for tile (ti, tj).
     *
     * @param v      the vector's entries for tile column tj, by offset in it.
     * @param inputs other objects {@code v} reads (such as a vector computed by earlier tasks).
     * @return the partial, t doubles.
     */
    Tile partial(final TileGraph graph, final String name, final int ti, final int tj, final Shape shape,
        final VectorInput v, final Tile... inputs)
    {
        final Tile tile = m.at(ti, tj);
        final Tile part = graph.tile(String.format("verify-%s[%03d,%03d]", name, ti, tj), t * Double.BYTES,
            Home.block(ti, tj));
        final TileTaskBuilder task = graph.task("verify " + part.tag()).write(part).read(tile);
        for (final Tile input : inputs)
        {
            task.read(input);
        }
        final Shape used = ti == tj ? shape : Shape.FULL;
        task.submit(x -> multiply(x.buffer(tile), used, v.entries(x::buffer), x.buffer(part)));
        return part;
    }

    /** Submits a task on the parts' tile row that sums them into a new vector object homed at (ti, ti). */
    Tile sum(final TileGraph graph, final String name, final int ti, final Tile[] parts)
    {
        final Tile into = graph.tile(String.format("verify-%s[%03d]", name, ti), t * Double.BYTES, Home.block(ti, ti));
        final TileTaskBuilder task = graph.task("verify " + into.tag()).write(into);
        for (final Tile part : parts)
        {
            task.read(part);
        }
        task.submit(x ->
        {
            final ByteBuffer out = x.buffer(into);
            for (int r = 0; r < t; r++)
            {
                double s = 0;
                for (final Tile part : parts)
                {
                    s += x.buffer(part).getDouble(r << 3);
                }
                out.putDouble(r << 3, s);
            }
        });
        return into;
    }

    /** Submits a task (on rank 0: it writes nothing) adding the parts into {@code out} from {@code row0} on. */
    void gather(final TileGraph graph, final String name, final Tile[] parts, final double[] out, final int row0)
    {
        final TileTaskBuilder task = graph.task(String.format("verify read %s[%03d]", name, row0 / t));
        for (final Tile part : parts)
        {
            task.read(part);
        }
        task.submit(x ->
        {
            for (final Tile part : parts)
            {
                final ByteBuffer buf = x.buffer(part);
                for (int r = 0; r < t; r++)
                {
                    out[row0 + r] += buf.getDouble(r << 3);
                }
            }
        });
    }

    /** @return {@code M·v} for a tile as stored (t doubles). */
    double[] multiply(final ByteBuffer tile, final Shape shape, final IntToDoubleFunction v)
    {
        final double[] sum = new double[t];
        for (int c = 0; c < t; c++)
        {
            final double vc = v.applyAsDouble(c);
            final int from = shape == Shape.UNIT_LOWER ? c + 1 : 0;
            final int to = shape == Shape.UPPER ? c + 1 : t;
            if (shape == Shape.UNIT_LOWER)
            {
                sum[c] += vc;
            }
            for (int r = from; r < to; r++)
            {
                sum[r] += m.get(tile, r, c) * vc;
            }
        }
        return sum;
    }

    private void multiply(final ByteBuffer tile, final Shape shape, final IntToDoubleFunction v, final ByteBuffer out)
    {
        final double[] sum = multiply(tile, shape, v);
        for (int r = 0; r < t; r++)
        {
            out.putDouble(r << 3, sum[r]);
        }
    }

    /** A vector's entries for one tile column, resolved inside the task that reads them. */
    interface VectorInput
    {
        IntToDoubleFunction entries(Function<Tile, ByteBuffer> buffers);
    }
}
