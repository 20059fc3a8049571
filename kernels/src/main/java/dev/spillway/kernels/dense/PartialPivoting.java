package dev.spillway.kernels.dense;

import dev.spillway.kernels.blas.TileBlas;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileTaskBuilder;

import java.nio.ByteBuffer;

/**
 * The tasks of one step of {@link Lu} with partial pivoting: the panel task factors a tile column as one tall matrix in
 * a scratch workspace (LAPACK dgetrf) and records its row interchanges; each other tile column then applies them, and
 * the columns to the right also solve with the panel's unit lower triangle (TRSM).
 */
final class PartialPivoting
{
    private final TileMatrix a;
    private final Tile[] pivots;
    private final TileBlas blas;
    private final int t;
    private final int nt;

    /** @param pivots the pivot tiles by step, filled in when declared. */
    PartialPivoting(final TileMatrix a, final Tile[] pivots, final TileBlas blas)
    {
        this.a = a;
        this.pivots = pivots;
        this.blas = blas;
        this.t = a.t;
        this.nt = a.nt;
    }

    /** Submits the panel task of step k: tile column k from the diagonal down, and the step's pivots. */
    void panel(final TileGraph graph, final int k, final int priority)
    {
        final int m = (nt - k) * t;
        final Tile workspace = graph.tile(String.format("panel-workspace[%03d]", k), m * t * Double.BYTES);
        final Tile[] column = new Tile[nt - k];
        for (int i = k; i < nt; i++)
        {
            column[i - k] = a.at(i, k);
        }
        final Tile piv = pivots[k];
        graph.task("getrf panel " + k).readWrite(column).scratch(workspace).write(piv).priority(priority)
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

    /**
     * Submits the task applying step k's interchanges to tile column j from the diagonal down; right of the panel
     * (j &gt; k) it then solves tile (k, j) with the panel's unit lower triangle.
     */
    void interchange(final TileGraph graph, final int k, final int j, final int priority)
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
            .readWrite(column).read(piv).priority(priority);
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
}
