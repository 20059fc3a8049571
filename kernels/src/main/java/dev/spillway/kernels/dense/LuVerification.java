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
 * The check of {@link Lu}: {@code ‖PA − LU‖_F / (‖A‖_F·n·ε)}. Rows of L·U are formed by tasks that read L and U tile
 * by tile, and rows of P·A are regenerated. Small orders check every row; larger ones sample rows of the last tile
 * row, which every elimination step touched. With a sample S the norm is scaled by sqrt(n/|S|).
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
        Arrays.fill(tileSquares, Double.NaN);
    }

    /** Notes the sum of squares of tile (ti, tj) just filled; a restarted run regenerates the ones it skipped. */
    void filled(final int ti, final int tj, final ByteBuffer tile)
    {
        tileSquares[ti * nt + tj] = squares(tile);
    }

    /** @return the sizes of the row buffers {@link #verify} stores, one per tile of L·U it forms rows of. */
    IntStream rowBufferBytes()
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
        final double norm2 = normSquared();
        final double residual = Math.sqrt(diff2 * n / sample.count()) / (Math.sqrt(norm2) * n * Math.ulp(1.0));
        return new Verification(residual <= 1.0, residual, 1.0,
            "‖PA − LU‖_F / (‖A‖_F·n·ε) over " + sample.describe(n) + (sample.count() < n ? " of the last tile row" : ""));
    }

    /** @return the rows {@link #verify} checks. */
    private SampledRows rows()
    {
        return SampledRows.of(n, n <= SampledRows.ALL_ROWS_UP_TO ? 0 : (nt - 1) * t, 11);
    }

    /** @return ‖A‖_F², regenerating the squares of tiles whose fill task this run did not execute. */
    private double normSquared()
    {
        double norm2 = 0;
        ByteBuffer regenerated = null;
        for (int i = 0; i < tileSquares.length; i++)
        {
            if (Double.isNaN(tileSquares[i]))
            {
                regenerated = regenerated != null ? regenerated : ByteBuffer.allocate(t * t * Double.BYTES)
                    .order(ByteOrder.nativeOrder());
                a.fill(regenerated, i / nt, i % nt, seed, diagonalShift);
                tileSquares[i] = squares(regenerated);
            }
            norm2 += tileSquares[i];
        }
        return norm2;
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
