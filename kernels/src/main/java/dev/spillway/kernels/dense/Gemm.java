package dev.spillway.kernels.dense;

import dev.spillway.kernels.Footprint;
import dev.spillway.kernels.IoLowerBound;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.Verification;
import dev.spillway.kernels.blas.TileBlas;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.ranks.Owners;

import java.nio.ByteBuffer;
import java.util.Arrays;
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
    private static final long SEED_PROBE = 0xF4EEL;

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
        return blockFor(budgetBytes, n, t, 1);
    }

    /**
     * As {@link #blockFor(long, int, int)} for tiles dealt over {@code ranks} ranks by {@link Owners#blockCyclic} on
     * a P×Q grid, each with {@code budgetBytes}: a rank holds ⌈b/P⌉·⌈b/Q⌉ tiles of a C block and the A and B tiles
     * of its rows and columns.
     */
    public static int blockFor(final long budgetBytes, final int n, final int t, final int ranks)
    {
        final long tiles = budgetBytes / ((long)t * t * Double.BYTES);
        final int p = Owners.gridRows(ranks);
        final int q = ranks / p;
        int edge = 1;
        while (edge < n / t && tilesPerRank(edge + 1, p, q) <= tiles)
        {
            edge++;
        }
        return edge;
    }

    private static long tilesPerRank(final int edge, final int p, final int q)
    {
        final long rows = (edge + p - 1) / p;
        final long cols = (edge + q - 1) / q;
        return rows * cols + 2 * (rows + cols) + 2;
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
    public IoLowerBound ioLowerBound(final long budgetBytes)
    {
        return IoLowerBound.dense(2, "2", n, budgetBytes, "Smith et al. 2019");
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

    /** @return a GEMM task's three tiles; A, B and C are stored, and the verification's partial vectors. */
    @Override
    public Footprint footprint()
    {
        final Footprint.Item tile = Footprint.object(a.tileBytes());
        final int tiles = (n / t) * (n / t);
        final int[] stored = new int[4 * tiles];
        Arrays.fill(stored, 0, 3 * tiles, a.tileBytes());
        Arrays.fill(stored, 3 * tiles, 4 * tiles, t * Double.BYTES);
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
     * Checks C against {@code C0 + A·B} recomputed from the generators in plain Java, both to pass:
     * {@code ‖ΔC‖_F / (n·ε·(‖A_S‖_F·‖B‖_F + ‖C0_S‖_F))} over sampled rows S (all rows up to n 1024), and a probe of
     * every entry, {@code ‖Cx − (C0x + A(Bx))‖₂ / (n·ε·(‖A‖_F·‖B‖_F + ‖C0‖_F)·‖x‖₂)} for a fixed pseudo-random x.
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
        final int nt = n / t;
        final double[] x = new double[n];
        for (int col = 0; col < n; col++)
        {
            x[col] = TileProducts.probe(SEED_PROBE, col);
        }
        final TileProducts products = new TileProducts(c);
        final double[] cx = new double[n];
        for (int ti = 0; ti < nt; ti++)
        {
            final Tile[] parts = new Tile[nt];
            for (int tj = 0; tj < nt; tj++)
            {
                final int col0 = tj * t;
                parts[tj] = products.partial(graph, "Cx", ti, tj, TileProducts.Shape.FULL,
                    buffers -> col -> x[col0 + col]);
            }
            products.gather(graph, "Cx", parts, cx, ti * t);
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
        final double[] bx = new double[n];
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
                        bx[kt * t + k] += v * x[tj * t + col];
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
        final double rows = Math.sqrt(diff2) / scale;
        final double probed = probeResidual(x, cx, bx, Math.sqrt(bNorm2));
        final double residual = Math.max(rows, probed);
        return new Verification(residual <= 1.0, residual, 1.0, String.format(
            "the larger of ‖C − (C0 + A·B)‖_F / (n·ε·(‖A‖_F·‖B‖_F + ‖C0‖_F)) over %s (%.3g) and " +
            "‖Cx − (C0x + A(Bx))‖₂ / (n·ε·(‖A‖_F·‖B‖_F + ‖C0‖_F)·‖x‖₂) for a pseudo-random x (%.3g), " +
            "references recomputed in plain Java", sample.describe(n), rows, probed));
    }

    /** @return the probe's residual, regenerating A and C0 row by row. */
    private double probeResidual(final double[] x, final double[] cx, final double[] bx, final double bNorm)
    {
        double aNorm2 = 0;
        double c0Norm2 = 0;
        double diff2 = 0;
        final double x2 = Arrays.stream(x).map(v -> v * v).sum();
        for (int row = 0; row < n; row++)
        {
            double want = 0;
            for (int col = 0; col < n; col++)
            {
                final double av = TileMatrix.entry(SEED_A, row, col);
                final double cv = TileMatrix.entry(SEED_C, row, col);
                want += av * bx[col] + cv * x[col];
                aNorm2 += av * av;
                c0Norm2 += cv * cv;
            }
            final double d = cx[row] - want;
            diff2 += d * d;
        }
        final double scale = n * Math.ulp(1.0) * (Math.sqrt(aNorm2) * bNorm + Math.sqrt(c0Norm2)) * Math.sqrt(x2);
        return Math.sqrt(diff2) / scale;
    }

    @Override
    public List<Tile> results()
    {
        return c.all();
    }
}
