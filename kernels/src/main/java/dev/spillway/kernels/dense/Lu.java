package dev.spillway.kernels.dense;

import dev.spillway.kernels.Footprint;
import dev.spillway.kernels.IoLowerBound;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.Verification;
import dev.spillway.kernels.blas.TileBlas;
import dev.spillway.kernels.graph.Home;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.ranks.Owners;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Tiled right-looking LU, submitted step by step (FIFO order is right-looking). Every task carries a priority that
 * favours the leftmost block of tile columns and then the earliest step, so policy {@code p} runs it left-looking by
 * blocks sized from the budget ({@link #widthFor}), as the seed does to cut write-backs.
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
    private final int width;
    private final boolean pivoting;
    private final TileBlas blas;
    private final TileMatrix a;
    private final Tile[] pivots;
    private final PartialPivoting pivotingSteps;
    private final LuVerification verification;

    /** @param pivoting partial pivoting on a general matrix, or none on a diagonally dominant one. */
    public Lu(final int n, final int t, final boolean pivoting, final TileBlas blas)
    {
        this(n, t, 1, pivoting, blas);
    }

    /**
     * @param width    tile columns factored together, left-looking (see {@link #widthFor}); the result does not
     *                 depend on it.
     * @param pivoting partial pivoting on a general matrix, or none on a diagonally dominant one.
     */
    public Lu(final int n, final int t, final int width, final boolean pivoting, final TileBlas blas)
    {
        TileMatrix.checkShape(n, t);
        if (width < 1)
        {
            throw new IllegalArgumentException("LU column block must be at least one tile column, got " + width);
        }
        this.n = n;
        this.t = t;
        this.nt = n / t;
        this.width = Math.min(width, nt);
        this.pivoting = pivoting;
        this.blas = blas;
        this.a = new TileMatrix("A", n, t);
        this.pivots = new Tile[pivoting ? nt : 0];
        this.pivotingSteps = new PartialPivoting(a, pivots, blas);
        this.verification = new LuVerification(a, pivots, SEED, diagonalShift());
    }

    /**
     * @return the most tile columns that fit in the budget with two columns to spare for the streamed tiles of
     *         earlier columns (three with pivoting, whose panel task also holds a workspace column); at least one.
     */
    public static int widthFor(final long budgetBytes, final int n, final int t, final boolean pivoting)
    {
        return widthFor(budgetBytes, n, t, pivoting, 1);
    }

    /**
     * As {@link #widthFor(long, int, int, boolean)} for tiles dealt over {@code ranks} ranks by
     * {@link Owners#blockCyclic} on a P×Q grid, each with {@code budgetBytes}: a rank holds at most
     * ⌈nt/P⌉ tiles of a column and one column in Q, so the block widens Q-fold per column that fits. The spare is two
     * such partial columns, and with pivoting also a whole panel column and its workspace.
     */
    public static int widthFor(final long budgetBytes, final int n, final int t, final boolean pivoting,
        final int ranks)
    {
        final int nt = n / t;
        final int p = Owners.gridRows(ranks);
        final long rankColumn = (long)((nt + p - 1) / p) * t * t * Double.BYTES;
        final long columns = budgetBytes / rankColumn - (pivoting ? 2L * p + 1 : 2);
        return (int)Math.max(1, Math.min(nt, columns * (ranks / p)));
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
    public IoLowerBound ioLowerBound(final long budgetBytes)
    {
        return IoLowerBound.dense(2.0 / 3, "(2/3)", n, budgetBytes, "Kwasniewski et al. 2021");
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
     *         pivots. Stored: the tiles, the pivots and the verification's buffers (the workspace is scratch).
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
        verification.storedBytes().forEach(stored::add);
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
                    verification.filled(ti, tj, buf);
                });
            }
        }
    }

    /**
     * Left-looking over blocks of {@link #width} tile columns: the leftmost block first, within it the earliest step,
     * then the leftmost column, so each tile of the earlier columns, streamed in once per block, updates every column
     * of the block while it is in DRAM.
     */
    private int priority(final int column, final int step)
    {
        return -(((column / width) * (nt + 1) + step) * width + column % width);
    }

    /**
     * With column blocks narrower than the matrix and no pivoting, submits the tasks in the order their priorities
     * run them (stable, so ties keep the right-looking order), which gives the same dependencies: each tile's writes
     * stay in step order, and every read of a finished tile comes after its last write. Checkpoint cuts, prefixes of
     * the submission order, then stay compact. A single block (width ≥ nt) already runs as submitted. With pivoting,
     * a row interchange of an earlier column would move ahead of that column's reads, so the right-looking order
     * stays.
     */
    @Override
    public void compute(final TileGraph graph)
    {
        final List<Step> steps = new ArrayList<>();
        for (int k = 0; k < nt; k++)
        {
            final int kk = k;
            final Tile akk = a.at(k, k);
            steps.add(new Step(priority(k, k), pivoting ? p -> pivotingSteps.panel(graph, kk, p) :
                p -> diagonal(graph, kk)));
            for (int j = 0; j < nt; j++)
            {
                final int jj = j;
                if (pivoting && j != k)
                {
                    steps.add(new Step(priority(j, k), p -> pivotingSteps.interchange(graph, kk, jj, p)));
                }
                else if (!pivoting && j > k)
                {
                    final Tile akj = a.at(k, j);
                    steps.add(new Step(priority(j, k), p -> graph.task("trsm " + akj.tag()).readWrite(akj).read(akk)
                        .priority(p)
                        .submit(x -> blas.dtrsm(true, true, false, true, t, t, 1.0, x.buffer(akk), t, x.buffer(akj),
                            t))));
                }
            }
            if (!pivoting)
            {
                for (int i = k + 1; i < nt; i++)
                {
                    final Tile aik = a.at(i, k);
                    steps.add(new Step(priority(k, k), p -> graph.task("trsm " + aik.tag()).readWrite(aik).read(akk)
                        .priority(p)
                        .submit(x -> blas.dtrsm(false, false, false, false, t, t, 1.0, x.buffer(akk), t,
                            x.buffer(aik), t))));
                }
            }
            for (int i = k + 1; i < nt; i++)
            {
                for (int j = k + 1; j < nt; j++)
                {
                    final Tile aij = a.at(i, j);
                    final Tile aik = a.at(i, k);
                    final Tile akj = a.at(k, j);
                    steps.add(new Step(priority(j, k), p -> graph.task("gemm " + aij.tag() + " k=" + kk)
                        .readWrite(aij).read(aik, akj).priority(p)
                        .submit(x -> blas.dgemm(false, false, t, t, t, -1.0, x.buffer(aik), t, x.buffer(akj), t, 1.0,
                            x.buffer(aij), t))));
                }
            }
        }
        if (!pivoting && width < nt)
        {
            steps.sort(Comparator.comparingInt(Step::priority).reversed());
        }
        steps.forEach(step -> step.submit().accept(step.priority()));
    }

    /** A task, or a pivoting step's tasks, to submit at a priority. */
    private record Step(int priority, IntConsumer submit)
    {
    }

    private void diagonal(final TileGraph graph, final int k)
    {
        final Tile akk = a.at(k, k);
        graph.task("getrf " + akk.tag()).readWrite(akk).priority(priority(k, k))
            .submit(x -> blas.dgetrfNoPivot(t, t, x.buffer(akk), t));
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

    /** Checks {@code ‖PA − LU‖_F / (‖A‖_F·n·ε)} over all rows or a sample (see {@code LuVerification}). */
    @Override
    public Verification verify(final TileGraph graph)
    {
        return verification.verify(graph);
    }

    @Override
    public List<Tile> results()
    {
        return a.all();
    }
}
