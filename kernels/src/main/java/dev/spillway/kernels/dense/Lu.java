package dev.spillway.kernels.dense;

import dev.spillway.kernels.Footprint;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.Verification;
import dev.spillway.kernels.blas.TileBlas;
import dev.spillway.kernels.graph.Home;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileTaskBuilder;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Tiled right-looking LU, submitted step by step (FIFO order is right-looking). Every task carries a priority that
 * favours the leftmost tile column and then the earliest step, so policy {@code p} runs it left-looking, as the seed
 * does to cut write-backs.
 * <ul>
 * <li>Without pivoting (diagonally dominant input): GETRF on the diagonal tile, TRSM on its row and column, GEMM on
 * the trailing tiles.</li>
 * <li>With partial pivoting (general input): a panel task factors tile column k as one tall matrix in a scratch
 * workspace (LAPACK dgetrf), then each other tile column applies the row interchanges, TRSM for columns to the
 * right, and GEMM updates the trailing tiles. A panel task holds the column's tiles plus an equal workspace, so the
 * budget must fit two tile columns.</li>
 * </ul>
 */
public final class Lu implements Kernel
{
    private static final long SEED = 0x10L;

    private final int n;
    private final int t;
    private final int nt;
    private final boolean pivoting;
    private final TileBlas blas;
    private final TileMatrix a;
    private final Tile[] pivots;
    private final double[] tileSquares;

    /** @param pivoting partial pivoting on a general matrix, or none on a diagonally dominant one. */
    public Lu(final int n, final int t, final boolean pivoting, final TileBlas blas)
    {
        TileMatrix.checkShape(n, t);
        this.n = n;
        this.t = t;
        this.nt = n / t;
        this.pivoting = pivoting;
        this.blas = blas;
        this.a = new TileMatrix("A", n, t);
        this.pivots = new Tile[pivoting ? nt : 0];
        this.tileSquares = new double[nt * nt];
        java.util.Arrays.fill(tileSquares, Double.NaN);
    }

    @Override
    public String name()
    {
        return "lu";
    }

    @Override
    public long size()
    {
        return n;
    }

    @Override
    public int tile()
    {
        return t;
    }

    @Override
    public long dataBytes()
    {
        return a.bytes() + (long)pivots.length * t * Integer.BYTES;
    }

    @Override
    public long pinnedBytes()
    {
        return 0;
    }

    @Override
    public long largestTaskBytes()
    {
        return pivoting ? 2L * nt * a.tileBytes() + (long)t * Integer.BYTES : 3L * a.tileBytes();
    }

    /**
     * @return without pivoting a GEMM's three tiles; with pivoting the first panel task's tile column, workspace and
     *         pivots. Stored: the tiles, the pivots and the verification's row buffers (the workspace is scratch).
     */
    @Override
    public Footprint footprint()
    {
        final Footprint.Item tile = Footprint.object(a.tileBytes());
        final List<Footprint.Item> largest = new java.util.ArrayList<>();
        if (pivoting)
        {
            for (int i = 0; i < nt; i++)
            {
                largest.add(new Footprint.Item(a.tileBytes(), false, Home.block(i, 0)));
            }
            largest.add(Footprint.object(nt * t * t * Double.BYTES));
            largest.add(new Footprint.Item(t * Integer.BYTES, false, Home.block(0, 0)));
        }
        else
        {
            largest.addAll(List.of(tile, tile, tile));
        }
        final java.util.stream.IntStream.Builder stored = java.util.stream.IntStream.builder();
        for (int i = 0; i < nt * nt; i++)
        {
            stored.add(a.tileBytes());
        }
        for (int k = 0; k < pivots.length; k++)
        {
            stored.add(t * Integer.BYTES);
        }
        final SampledRows sample = verificationRows();
        for (int ti = 0; ti < nt; ti++)
        {
            final int rows = localRows(sample, ti * t).length;
            for (int tb = 0; rows > 0 && tb < nt; tb++)
            {
                stored.add(rows * t * Double.BYTES);
            }
        }
        return new Footprint(largest, List.of(), stored.build().toArray());
    }

    @Override
    public void declare(final TileGraph graph)
    {
        a.declare(graph);
        for (int k = 0; k < pivots.length; k++)
        {
            pivots[k] = graph.tile(String.format("P[%03d]", k), t * Integer.BYTES, Home.block(k, k));
        }
    }

    private double diagonalShift()
    {
        return pivoting ? 0.0 : n;
    }

    @Override
    public void initialize(final TileGraph graph)
    {
        for (int i = 0; i < nt; i++)
        {
            for (int j = 0; j < nt; j++)
            {
                final Tile tile = a.at(i, j);
                final int ti = i;
                final int tj = j;
                graph.task("fill " + tile.tag()).write(tile).submit(x ->
                {
                    final ByteBuffer buf = x.buffer(tile);
                    a.fill(buf, ti, tj, SEED, diagonalShift());
                    tileSquares[ti * nt + tj] = squares(buf);
                });
            }
        }
    }

    private int priority(final int column, final int step)
    {
        return -(column * (nt + 1) + step);
    }

    @Override
    public void compute(final TileGraph graph)
    {
        for (int k = 0; k < nt; k++)
        {
            if (pivoting)
            {
                panel(graph, k);
            }
            else
            {
                diagonal(graph, k);
            }
            final Tile akk = a.at(k, k);
            for (int j = 0; j < nt; j++)
            {
                if (pivoting && j != k)
                {
                    interchange(graph, k, j);
                }
                else if (!pivoting && j > k)
                {
                    final Tile akj = a.at(k, j);
                    graph.task("trsm " + akj.tag()).readWrite(akj).read(akk).priority(priority(j, k))
                        .submit(x -> blas.dtrsm(true, true, false, true, t, t, 1.0, x.buffer(akk), t, x.buffer(akj), t));
                }
            }
            if (!pivoting)
            {
                for (int i = k + 1; i < nt; i++)
                {
                    final Tile aik = a.at(i, k);
                    graph.task("trsm " + aik.tag()).readWrite(aik).read(akk).priority(priority(k, k))
                        .submit(x -> blas.dtrsm(false, false, false, false, t, t, 1.0, x.buffer(akk), t, x.buffer(aik), t));
                }
            }
            for (int i = k + 1; i < nt; i++)
            {
                for (int j = k + 1; j < nt; j++)
                {
                    final Tile aij = a.at(i, j);
                    final Tile aik = a.at(i, k);
                    final Tile akj = a.at(k, j);
                    graph.task("gemm " + aij.tag() + " k=" + k).readWrite(aij).read(aik, akj).priority(priority(j, k))
                        .submit(x -> blas.dgemm(false, false, t, t, t, -1.0, x.buffer(aik), t, x.buffer(akj), t, 1.0,
                            x.buffer(aij), t));
                }
            }
        }
    }

    private void diagonal(final TileGraph graph, final int k)
    {
        final Tile akk = a.at(k, k);
        graph.task("getrf " + akk.tag()).readWrite(akk).priority(priority(k, k))
            .submit(x -> blas.dgetrfNoPivot(t, t, x.buffer(akk), t));
    }

    private void panel(final TileGraph graph, final int k)
    {
        final int m = (nt - k) * t;
        final Tile workspace = graph.tile(String.format("panel-workspace[%03d]", k), m * t * Double.BYTES);
        final Tile[] column = new Tile[nt - k];
        for (int i = k; i < nt; i++)
        {
            column[i - k] = a.at(i, k);
        }
        final Tile piv = pivots[k];
        graph.task("getrf panel " + k).readWrite(column).scratch(workspace).write(piv).priority(priority(k, k))
            .submit(x ->
            {
                final ByteBuffer w = x.buffer(workspace);
                for (int i = 0; i < column.length; i++)
                {
                    copyTile(x.buffer(column[i]), w, i * t, m, true);
                }
                final int[] ipiv = new int[t];
                blas.dgetrf(m, t, w, m, ipiv);
                for (int i = 0; i < column.length; i++)
                {
                    copyTile(x.buffer(column[i]), w, i * t, m, false);
                }
                final ByteBuffer p = x.buffer(piv);
                for (int r = 0; r < t; r++)
                {
                    p.putInt(r * Integer.BYTES, ipiv[r]);
                }
            });
    }

    /** Copies a t×t tile into (or out of) rows [row0, row0 + t) of a column-major matrix with leading dimension ld. */
    private void copyTile(final ByteBuffer tile, final ByteBuffer matrix, final int row0, final int ld, final boolean in)
    {
        for (int c = 0; c < t; c++)
        {
            final ByteBuffer from = in ? tile : matrix;
            final ByteBuffer to = in ? matrix : tile;
            final int tileAt = c * t * Double.BYTES;
            final int matrixAt = (c * ld + row0) * Double.BYTES;
            to.put(in ? matrixAt : tileAt, from, in ? tileAt : matrixAt, t * Double.BYTES);
        }
    }

    private void interchange(final TileGraph graph, final int k, final int j)
    {
        final Tile[] column = new Tile[nt - k];
        for (int i = k; i < nt; i++)
        {
            column[i - k] = a.at(i, j);
        }
        final Tile piv = pivots[k];
        final Tile akk = a.at(k, k);
        final boolean solve = j > k;
        final TileTaskBuilder task = graph.task((solve ? "laswp+trsm " : "laswp ") + a.at(k, j).tag())
            .readWrite(column).read(piv).priority(priority(j, k));
        if (solve)
        {
            task.read(akk);
        }
        task.submit(x ->
        {
            final ByteBuffer p = x.buffer(piv);
            final ByteBuffer[] tiles = new ByteBuffer[column.length];
            for (int i = 0; i < tiles.length; i++)
            {
                tiles[i] = x.buffer(column[i]);
            }
            for (int r = 0; r < t; r++)
            {
                final int other = p.getInt(r * Integer.BYTES);
                if (other != r)
                {
                    swapRows(tiles[0], r, tiles[other / t], other % t);
                }
            }
            if (solve)
            {
                blas.dtrsm(true, true, false, true, t, t, 1.0, x.buffer(akk), t, tiles[0], t);
            }
        });
    }

    private void swapRows(final ByteBuffer x, final int rx, final ByteBuffer y, final int ry)
    {
        for (int c = 0; c < t; c++)
        {
            final int ix = (c * t + rx) << 3;
            final int iy = (c * t + ry) << 3;
            final double v = x.getDouble(ix);
            x.putDouble(ix, y.getDouble(iy));
            y.putDouble(iy, v);
        }
    }

    @Override
    public long computeTasks()
    {
        long tasks = 0;
        for (int k = 0; k < nt; k++)
        {
            final long rest = nt - k - 1;
            tasks += 1 + rest * rest + (pivoting ? nt - 1 : 2 * rest);
        }
        return tasks;
    }

    @Override
    public double work()
    {
        return 2.0 / 3.0 * n * (double)n * n;
    }

    @Override
    public String workUnit()
    {
        return "GFLOP/s";
    }

    /**
     * Checks {@code ‖PA − LU‖_F / (‖A‖_F·n·ε)}: rows of L·U are formed by tasks that read L and U tile by tile, and
     * rows of P·A are regenerated. Small orders check every row; larger ones sample rows of the last tile row, which
     * every elimination step touched. With a sample S the norm is scaled by sqrt(n/|S|).
     */
    @Override
    public Verification verify(final TileGraph graph)
    {
        final SampledRows sample = verificationRows();
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
                final double pa = TileMatrix.entry(SEED, source, col) + (source == col ? diagonalShift() : 0.0);
                final double d = pa - lu[r][col];
                diff2 += d * d;
            }
        }
        double norm2 = 0;
        ByteBuffer regenerated = null;
        for (int i = 0; i < tileSquares.length; i++)
        {
            if (Double.isNaN(tileSquares[i]))
            {
                regenerated = regenerated != null ? regenerated : ByteBuffer.allocate(t * t * Double.BYTES)
                    .order(java.nio.ByteOrder.nativeOrder());
                a.fill(regenerated, i / nt, i % nt, SEED, diagonalShift());
                tileSquares[i] = squares(regenerated);
            }
            norm2 += tileSquares[i];
        }
        final double residual = Math.sqrt(diff2 * n / sample.count()) / (Math.sqrt(norm2) * n * Math.ulp(1.0));
        return new Verification(residual <= 1.0, residual, 1.0,
            "‖PA − LU‖_F / (‖A‖_F·n·ε) over " + sample.describe(n) + (sample.count() < n ? " of the last tile row" : ""));
    }

    /** @return the rows {@link #verify} checks. */
    private SampledRows verificationRows()
    {
        return SampledRows.of(n, n <= SampledRows.ALL_ROWS_UP_TO ? 0 : (nt - 1) * t, 11);
    }

    /** Sum of squares of a tile; a restarted run regenerates those of the fill tasks its checkpoint skipped. */
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

    private int[] permutation(final TileGraph graph)
    {
        final int[] perm = new int[n];
        for (int i = 0; i < n; i++)
        {
            perm[i] = i;
        }
        if (!pivoting)
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
        return java.util.Arrays.stream(sample.rows).filter(r -> r >= row0 && r < row0 + t).map(r -> r - row0).toArray();
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

    @Override
    public List<Tile> results()
    {
        return a.all();
    }
}
