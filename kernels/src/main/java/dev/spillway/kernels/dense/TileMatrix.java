package dev.spillway.kernels.dense;

import dev.spillway.kernels.graph.Home;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * An n×n matrix of doubles cut into t×t tiles, each tile column-major in its own data object tagged
 * {@code NAME[row,col]} (zero-padded, so tag order is row-major tile order). Inputs are generated element by element
 * from a seed, so any entry can be regenerated without the data.
 */
final class TileMatrix
{
    final String name;
    final int n;
    final int t;
    final int nt;
    private final Tile[][] tiles;

    TileMatrix(final String name, final int n, final int t)
    {
        this.name = name;
        this.n = n;
        this.t = t;
        this.nt = n / t;
        this.tiles = new Tile[nt][nt];
    }

    static void checkShape(final int n, final int t)
    {
        if (n <= 0 || t <= 0)
        {
            throw new IllegalArgumentException("matrix order " + n + " and tile " + t + " must be positive");
        }
        if (n % t != 0)
        {
            throw new IllegalArgumentException("matrix order " + n + " is not a multiple of the tile " + t +
                " (ragged tiles are not supported): try --n " + (n / t) * t + " or --n " + (n / t + 1) * t);
        }
        if ((long)t * t * Double.BYTES > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("tile " + t + " is too large: a tile must stay under 2 GiB");
        }
    }

    void declare(final TileGraph graph)
    {
        final String format = "%s[%0" + digits(nt) + "d,%0" + digits(nt) + "d]";
        for (int i = 0; i < nt; i++)
        {
            for (int j = 0; j < nt; j++)
            {
                tiles[i][j] = graph.tile(String.format(format, name, i, j), tileBytes(), Home.block(i, j));
            }
        }
    }

    Tile at(final int i, final int j)
    {
        return tiles[i][j];
    }

    int tileBytes()
    {
        return t * t * Double.BYTES;
    }

    long bytes()
    {
        return (long)nt * nt * tileBytes();
    }

    List<Tile> all()
    {
        final List<Tile> all = new ArrayList<>(nt * nt);
        for (final Tile[] row : tiles)
        {
            all.addAll(List.of(row));
        }
        return all;
    }

    /** Fills tile (ti, tj) with generated entries, adding {@code diagonal} on the matrix diagonal. */
    void fill(final ByteBuffer tile, final int ti, final int tj, final long seed, final double diagonal)
    {
        for (int c = 0; c < t; c++)
        {
            final long col = (long)tj * t + c;
            for (int r = 0; r < t; r++)
            {
                final long row = (long)ti * t + r;
                final double v = entry(seed, row, col) + (row == col ? diagonal : 0.0);
                tile.putDouble(((c * t) + r) << 3, v);
            }
        }
    }

    double get(final ByteBuffer tile, final int r, final int c)
    {
        return tile.getDouble((c * t + r) << 3);
    }

    /** @return the generated entry (row, col) of the matrix with {@code seed}, uniform in [-1, 1). */
    static double entry(final long seed, final long row, final long col)
    {
        final long h = mix(mix(seed ^ (row * 0x632BE59BD9B4E019L)) + col);
        return (h >>> 11) * 0x1.0p-52 - 1.0;
    }

    private static long mix(final long z0)
    {
        long z = z0 + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static int digits(final int count)
    {
        return Math.max(1, Integer.toString(count - 1).length());
    }
}
