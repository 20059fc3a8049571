package dev.spillway.kernels.dense;

import dev.spillway.kernels.Verification;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileTaskBuilder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * The checks of {@link Lu}, both to pass:
 * <ul>
 * <li>{@code ‖PA − LU‖_F / (‖A‖_F·n·ε)}. Rows of L·U are formed by tasks that read L and U tile by tile, and rows of
 * P·A are regenerated. Small orders check every row; larger ones sample rows of the last tile row, which every
 * elimination step touched. With a sample S the norm is scaled by sqrt(n/|S|).</li>
 * <li>A probe of every entry (Freivalds): {@code ‖PAx − L(Ux)‖₂ / (‖A‖_F·‖x‖₂·n·ε)} for a fixed pseudo-random x. A
 * sample of the last tile row cannot see a wrong tile above it: that row is eliminated consistently against whatever
 * the rows above hold. The probe reads every tile of L and U once; A·x is summed as A is filled.</li>
 * </ul>
 */
final class LuVerification
{
    private final TileMatrix a;
    private final Tile[] pivots;
    private final long seed;
    private final double diagonalShift;
    private final int n;
    private final int t;
    private final int nt;
    /** Sum of squares of each tile of A as filled, row-major by tile; NaN until its fill task ran. */
    private final double[] tileSquares;
    /** A[ti, tj]·x[tj] for each tile as filled, row-major by tile; null until its fill task ran. */
    private final double[][] tileProbes;
    private final TileProducts products;

    /**
     * @param a             the matrix, factored in place.
     * @param pivots        the pivot tiles by step, filled in when declared; empty without pivoting.
     * @param seed          the seed A was generated from.
     * @param diagonalShift what was added to A's diagonal.
     */
    LuVerification(final TileMatrix a, final Tile[] pivots, final long seed, final double diagonalShift)
    {
        this.a = a;
        this.pivots = pivots;
        this.seed = seed;
        this.diagonalShift = diagonalShift;
        this.n = a.n;
        this.t = a.t;
        this.nt = a.nt;
        this.tileSquares = new double[nt * nt];
        this.tileProbes = new double[nt * nt][];
        this.products = new TileProducts(a);
        Arrays.fill(tileSquares, Double.NaN);
    }

    /**
     * Notes the sum of squares of tile (ti, tj) just filled and its product with the probe; a restarted run, or a
     * rank that did not fill it, regenerates the ones it skipped.
     */
    void filled(final int ti, final int tj, final ByteBuffer tile)
    {
        tileSquares[ti * nt + tj] = squares(tile);
        final int col0 = tj * t;
        tileProbes[ti * nt + tj] = products.multiply(tile, TileProducts.Shape.FULL, c -> probe(col0 + c));
    }

    /** @return the sizes of the buffers {@link #verify} stores: rows of L·U, then the probe's vectors. */
    IntStream storedBytes()
    {
        final SampledRows sample = rows();
        final IntStream.Builder sizes = IntStream.builder();
        for (int ti = 0; ti < nt; ti++)
        {
            final int rows = localRows(sample, ti * t).length;
            for (int tb = 0; rows > 0 && tb < nt; tb++)
            {
                sizes.add(rows * t * Double.BYTES);
            }
        }
        for (int i = 0; i < nt * (nt + 1) + nt; i++)
        {
            sizes.add(t * Double.BYTES);
        }
        return sizes.build();
    }

    Verification verify(final TileGraph graph)
    {
        final SampledRows sample = rows();
        final int[] permutation = permutation(graph);
        final double[][] lu = new double[sample.count()][n];
        for (int ti = 0; ti < nt; ti++)
        {
            final int row0 = ti * t;
            final int[] local = localRows(sample, row0);
            if (local.length == 0)
            {
                continue;
            }
            for (int tb = 0; tb < nt; tb++)
            {
                rowsOfProduct(graph, ti, tb, local, lu, firstIndex(sample, row0));
            }
        }
        final double[] lux = probeThroughFactors(graph);
        graph.awaitAll();

        double diff2 = 0;
        for (int r = 0; r < sample.count(); r++)
        {
            final long source = permutation[sample.rows[r]];
            for (int col = 0; col < n; col++)
            {
                final double pa = TileMatrix.entry(seed, source, col) + (source == col ? diagonalShift : 0.0);
                final double d = pa - lu[r][col];
                diff2 += d * d;
            }
        }
        regenerateSkippedTiles();
        final double norm = Math.sqrt(Arrays.stream(tileSquares).sum());
        final double rows = Math.sqrt(diff2 * n / sample.count()) / (norm * n * Math.ulp(1.0));

        double probe2 = 0;
        double probeDiff2 = 0;
        for (int r = 0; r < n; r++)
        {
            final int source = permutation[r];
            final double pax = productRow(source);
            final double d = pax - lux[r];
            probeDiff2 += d * d;
            final double xr = probe(r);
            probe2 += xr * xr;
        }
        final double probed = Math.sqrt(probeDiff2) / (norm * Math.sqrt(probe2) * n * Math.ulp(1.0));
        final double residual = Math.max(rows, probed);
        return new Verification(residual <= 1.0, residual, 1.0, String.format(
            "the larger of ‖PA − LU‖_F / (‖A‖_F·n·ε) over %s%s (%.3g) and ‖PAx − L(Ux)‖₂ / (‖A‖_F·‖x‖₂·n·ε) " +
            "for a pseudo-random x (%.3g)", sample.describe(n), sample.count() < n ? " of the last tile row" : "",
            rows, probed));
    }

    /** @return row {@code row} of A·x, summed over its tiles' probe products. */
    private double productRow(final int row)
    {
        final int ti = row / t;
        double sum = 0;
        for (int tj = 0; tj < nt; tj++)
        {
            sum += tileProbes[ti * nt + tj][row - ti * t];
        }
        return sum;
    }

    private double probe(final long col)
    {
        return TileProducts.probe(seed, col);
    }

    /**
     * Submits U·x (partials summed per tile row into y), then L·y; rank 0 gathers L·y.
     *
     * @return L(Ux) by row, complete once the graph's tasks are done.
     */
    private double[] probeThroughFactors(final TileGraph graph)
    {
        final Tile[] y = new Tile[nt];
        for (int ti = 0; ti < nt; ti++)
        {
            final Tile[] parts = new Tile[nt - ti];
            for (int tj = ti; tj < nt; tj++)
            {
                final int col0 = tj * t;
                parts[tj - ti] = products.partial(graph, "Ux", ti, tj, TileProducts.Shape.UPPER,
                    buffers -> c -> probe(col0 + c));
            }
            y[ti] = products.sum(graph, "Ux", ti, parts);
        }
        final double[] lux = new double[n];
        for (int ti = 0; ti < nt; ti++)
        {
            final Tile[] parts = new Tile[ti + 1];
            for (int tk = 0; tk <= ti; tk++)
            {
                final Tile yk = y[tk];
                parts[tk] = products.partial(graph, "LUx", ti, tk, TileProducts.Shape.UNIT_LOWER, buffers ->
                {
                    final ByteBuffer in = buffers.apply(yk);
                    return c -> in.getDouble(c << 3);
                }, yk);
            }
            products.gather(graph, "LUx", parts, lux, ti * t);
        }
        return lux;
    }

    /** @return the rows {@link #verify} checks. */
    private SampledRows rows()
    {
        return SampledRows.of(n, n <= SampledRows.ALL_ROWS_UP_TO ? 0 : (nt - 1) * t, 11);
    }

    /** Regenerates the squares and probe products of tiles whose fill task this run did not execute. */
    private void regenerateSkippedTiles()
    {
        ByteBuffer regenerated = null;
        for (int i = 0; i < tileSquares.length; i++)
        {
            if (Double.isNaN(tileSquares[i]) || tileProbes[i] == null)
            {
                regenerated = regenerated != null ? regenerated : ByteBuffer.allocate(t * t * Double.BYTES)
                    .order(ByteOrder.nativeOrder());
                a.fill(regenerated, i / nt, i % nt, seed, diagonalShift);
                filled(i / nt, i % nt, regenerated);
            }
        }
    }

    private double squares(final ByteBuffer buf)
    {
        double sum = 0;
        for (int e = 0; e < t * t; e++)
        {
            final double v = buf.getDouble(e << 3);
            sum += v * v;
        }
        return sum;
    }

    /** @return P as a row map: row i of P·A is row {@code perm[i]} of A; identity without pivoting. */
    private int[] permutation(final TileGraph graph)
    {
        final int[] perm = new int[n];
        for (int i = 0; i < n; i++)
        {
            perm[i] = i;
        }
        if (pivots.length == 0)
        {
            return perm;
        }
        final int[][] ipiv = new int[nt][t];
        for (int k = 0; k < nt; k++)
        {
            final Tile piv = pivots[k];
            final int step = k;
            graph.task("verify " + piv.tag()).read(piv).submit(x ->
            {
                for (int r = 0; r < t; r++)
                {
                    ipiv[step][r] = x.buffer(piv).getInt(r * Integer.BYTES);
                }
            });
        }
        graph.awaitAll();
        for (int k = 0; k < nt; k++)
        {
            for (int r = 0; r < t; r++)
            {
                final int x = k * t + r;
                final int y = k * t + ipiv[k][r];
                final int swap = perm[x];
                perm[x] = perm[y];
                perm[y] = swap;
            }
        }
        return perm;
    }

    private int[] localRows(final SampledRows sample, final int row0)
    {
        return Arrays.stream(sample.rows).filter(r -> r >= row0 && r < row0 + t).map(r -> r - row0).toArray();
    }

    private int firstIndex(final SampledRows sample, final int row0)
    {
        int i = 0;
        while (sample.rows[i] < row0)
        {
            i++;
        }
        return i;
    }

    /** Adds L[rows of tile row ti, :]·U[:, tile column tb] into {@code lu}, one task per inner tile a. */
    private void rowsOfProduct(final TileGraph graph, final int ti, final int tb, final int[] local, final double[][] lu,
        final int first)
    {
        final Tile acc = graph.tile(String.format("verify-LU[%03d,%03d]", ti, tb), local.length * t * Double.BYTES);
        graph.task("verify zero " + acc.tag()).write(acc).submit(x ->
        {
            final ByteBuffer buf = x.buffer(acc);
            for (int e = 0; e < local.length * t; e++)
            {
                buf.putDouble(e << 3, 0.0);
            }
        });
        for (int ta = 0; ta <= Math.min(ti, tb); ta++)
        {
            final Tile lTile = a.at(ti, ta);
            final Tile uTile = a.at(ta, tb);
            final boolean diagonalL = ta == ti;
            final boolean diagonalU = ta == tb;
            final TileTaskBuilder task = graph.task("verify " + lTile.tag() + "·" + uTile.tag()).readWrite(acc).read(lTile);
            if (uTile != lTile)
            {
                task.read(uTile);
            }
            task.submit(x ->
            {
                final ByteBuffer l = x.buffer(lTile);
                final ByteBuffer u = x.buffer(uTile);
                final ByteBuffer out = x.buffer(acc);
                final double[] lRow = new double[t];
                final double[] uCol = new double[t];
                for (int r = 0; r < local.length; r++)
                {
                    final int rr = local[r];
                    for (int c = 0; c < t; c++)
                    {
                        lRow[c] = !diagonalL || c < rr ? a.get(l, rr, c) : c == rr ? 1.0 : 0.0;
                    }
                    for (int q = 0; q < t; q++)
                    {
                        final int rows = diagonalU ? q + 1 : t;
                        for (int c = 0; c < rows; c++)
                        {
                            uCol[c] = a.get(u, c, q);
                        }
                        double sum = 0;
                        for (int c = 0; c < rows; c++)
                        {
                            sum += lRow[c] * uCol[c];
                        }
                        final int at = (r * t + q) << 3;
                        out.putDouble(at, out.getDouble(at) + sum);
                    }
                }
            });
        }
        graph.task("verify read " + acc.tag()).read(acc).submit(x ->
        {
            final ByteBuffer buf = x.buffer(acc);
            for (int r = 0; r < local.length; r++)
            {
                for (int q = 0; q < t; q++)
                {
                    lu[first + r][tb * t + q] = buf.getDouble((r * t + q) << 3);
                }
            }
        });
    }
}
