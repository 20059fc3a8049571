package dev.spillway.kernels.dense;

import dev.spillway.kernels.Footprint;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.Verification;
import dev.spillway.kernels.blas.TileBlas;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Tiled {@code C += A·B}. Tasks are submitted C-block-stationary: for each b×b block of C tiles, for each k, every
 * C tile of the block takes {@code A[i,k]·B[k,j]}. A block of C stays in DRAM while the A and B panels stream past
 * it, so a budget of about b² + 4b tiles reads the inputs nt/b times instead of nt times.
 */
public final class Gemm implements Kernel
{
    private static final long SEED_A = 0xA11CEL;
    private static final long SEED_B = 0xB0BL;
    private static final long SEED_C = 0xC0FFEEL;

    private final int n;
    private final int t;
    private final int block;
    private final TileBlas blas;
    private final TileMatrix a;
    private final TileMatrix b;
    private final TileMatrix c;

    /**
     * @param n     matrix order, a multiple of {@code t}.
     * @param t     tile edge.
     * @param block edge of the C block, in tiles (see {@link #blockFor}).
     */
    public Gemm(final int n, final int t, final int block, final TileBlas blas)
    {
        TileMatrix.checkShape(n, t);
        if (block < 1)
        {
            throw new IllegalArgumentException("C block must be at least one tile, got " + block);
        }
        this.n = n;
        this.t = t;
        this.block = Math.min(block, n / t);
        this.blas = blas;
        this.a = new TileMatrix("A", n, t);
        this.b = new TileMatrix("B", n, t);
        this.c = new TileMatrix("C", n, t);
    }

    /** @return the largest C block edge whose b² tiles plus two A and B panels (current and prefetched) fit. */
    public static int blockFor(final long budgetBytes, final int n, final int t)
    {
        final long tiles = budgetBytes / ((long)t * t * Double.BYTES);
        int edge = 1;
        while (edge < n / t && (long)(edge + 1) * (edge + 1) + 4L * (edge + 1) + 2 <= tiles)
        {
            edge++;
        }
        return edge;
    }

    @Override
    public String name()
    {
        return "matmul";
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
        return 3 * a.bytes();
    }

    @Override
    public long pinnedBytes()
    {
        return 0;
    }

    @Override
    public long largestTaskBytes()
    {
        return 3L * a.tileBytes();
    }

    /** @return a GEMM task's three tiles; A, B and C are stored. */
    @Override
    public Footprint footprint()
    {
        final Footprint.Item tile = Footprint.object(a.tileBytes());
        final int[] stored = new int[3 * (n / t) * (n / t)];
        java.util.Arrays.fill(stored, a.tileBytes());
        return new Footprint(List.of(tile, tile, tile), List.of(), stored);
    }

    @Override
    public void declare(final TileGraph graph)
    {
        a.declare(graph);
        b.declare(graph);
        c.declare(graph);
    }

    @Override
    public void initialize(final TileGraph graph)
    {
        fill(graph, a, SEED_A);
        fill(graph, b, SEED_B);
        fill(graph, c, SEED_C);
    }

    private static void fill(final TileGraph graph, final TileMatrix matrix, final long seed)
    {
        for (int i = 0; i < matrix.nt; i++)
        {
            for (int j = 0; j < matrix.nt; j++)
            {
                final Tile tile = matrix.at(i, j);
                final int ti = i;
                final int tj = j;
                graph.task("fill " + tile.tag()).write(tile).submit(x -> matrix.fill(x.buffer(tile), ti, tj, seed, 0.0));
            }
        }
    }

    @Override
    public void compute(final TileGraph graph)
    {
        final int nt = n / t;
        int order = 0;
        for (int bi = 0; bi < nt; bi += block)
        {
            for (int bj = 0; bj < nt; bj += block)
            {
                for (int k = 0; k < nt; k++)
                {
                    for (int i = bi; i < Math.min(bi + block, nt); i++)
                    {
                        for (int j = bj; j < Math.min(bj + block, nt); j++)
                        {
                            final Tile cij = c.at(i, j);
                            final Tile aik = a.at(i, k);
                            final Tile bkj = b.at(k, j);
                            graph.task("gemm " + cij.tag() + " k=" + k).readWrite(cij).read(aik, bkj).priority(-order++)
                                .submit(x -> blas.dgemm(false, false, t, t, t, 1.0, x.buffer(aik), t, x.buffer(bkj), t,
                                    1.0, x.buffer(cij), t));
                        }
                    }
                }
            }
        }
    }

    @Override
    public long computeTasks()
    {
        final long nt = n / t;
        return nt * nt * nt;
    }

    @Override
    public double work()
    {
        return 2.0 * n * (double)n * n;
    }

    @Override
    public String workUnit()
    {
        return "GFLOP/s";
    }

    /**
     * Checks sampled rows of C against {@code C0 + A·B} recomputed from the generators in plain Java:
     * {@code ‖ΔC‖_F / (n·ε·(‖A_S‖_F·‖B‖_F + ‖C0_S‖_F))} over the sampled rows S.
     */
    @Override
    public Verification verify(final TileGraph graph)
    {
        final SampledRows sample = SampledRows.of(n, 0, 7);
        final int s = sample.count();
        final double[][] got = new double[s][n];
        for (int ti = 0; ti < n / t; ti++)
        {
            final int row0 = ti * t;
            if (!sample.touches(row0, row0 + t))
            {
                continue;
            }
            for (int tj = 0; tj < n / t; tj++)
            {
                final Tile tile = c.at(ti, tj);
                final int col0 = tj * t;
                graph.task("verify " + tile.tag()).read(tile).submit(x ->
                {
                    final ByteBuffer buf = x.buffer(tile);
                    for (int r = 0; r < s; r++)
                    {
                        final int row = sample.rows[r];
                        if (row >= row0 && row < row0 + t)
                        {
                            for (int col = 0; col < t; col++)
                            {
                                got[r][col0 + col] = c.get(buf, row - row0, col);
                            }
                        }
                    }
                });
            }
        }
        graph.awaitAll();

        final double[][] aRows = new double[s][n];
        final double[][] want = new double[s][n];
        double aNorm2 = 0;
        double c0Norm2 = 0;
        for (int r = 0; r < s; r++)
        {
            for (int col = 0; col < n; col++)
            {
                aRows[r][col] = TileMatrix.entry(SEED_A, sample.rows[r], col);
                want[r][col] = TileMatrix.entry(SEED_C, sample.rows[r], col);
                aNorm2 += aRows[r][col] * aRows[r][col];
                c0Norm2 += want[r][col] * want[r][col];
            }
        }
        double bNorm2 = 0;
        final double[] bTile = new double[t * t];
        for (int kt = 0; kt < n / t; kt++)
        {
            for (int tj = 0; tj < n / t; tj++)
            {
                for (int col = 0; col < t; col++)
                {
                    for (int k = 0; k < t; k++)
                    {
                        final double v = TileMatrix.entry(SEED_B, (long)kt * t + k, (long)tj * t + col);
                        bTile[col * t + k] = v;
                        bNorm2 += v * v;
                    }
                }
                for (int r = 0; r < s; r++)
                {
                    final double[] aRow = aRows[r];
                    for (int col = 0; col < t; col++)
                    {
                        double sum = 0;
                        for (int k = 0; k < t; k++)
                        {
                            sum += aRow[kt * t + k] * bTile[col * t + k];
                        }
                        want[r][tj * t + col] += sum;
                    }
                }
            }
        }
        double diff2 = 0;
        for (int r = 0; r < s; r++)
        {
            for (int col = 0; col < n; col++)
            {
                final double d = got[r][col] - want[r][col];
                diff2 += d * d;
            }
        }
        final double scale = n * Math.ulp(1.0) * (Math.sqrt(aNorm2) * Math.sqrt(bNorm2) + Math.sqrt(c0Norm2));
        final double residual = Math.sqrt(diff2) / scale;
        return new Verification(residual <= 1.0, residual, 1.0,
            "‖C − (C0 + A·B)‖_F / (n·ε·(‖A‖_F·‖B‖_F + ‖C0‖_F)) over " + sample.describe(n) +
                ", reference recomputed in plain Java");
    }

    @Override
    public List<Tile> results()
    {
        return c.all();
    }
}
