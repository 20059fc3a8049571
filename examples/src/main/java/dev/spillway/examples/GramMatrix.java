package dev.spillway.examples;

import dev.spillway.Spillway;
import dev.spillway.SpillwayStats;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;

/**
 * Embedding example: the Gram matrix XᵀX of a table larger than the DRAM budget, computed out of core with
 * Spillway as an analytics pipeline would, then used in plain Java (column means, the most correlated pair of
 * columns) and checked against a direct streaming computation.
 *
 * <p>Run with {@code --help} for the arguments.
 */
public final class GramMatrix
{
    /** Largest relative difference from the direct computation that {@link #main} accepts. */
    public static final double TOLERANCE = 1e-12;

    static final long SEED = 42;
    static final int WORKERS = 2;

    private GramMatrix()
    {
    }

    /**
     * Streams {@code source} into tiles of {@code rowsPerTile} rows, each filled by a WRITE task, and computes XᵀX
     * out of core: one task per tile for its partial product, and a pairwise tree of merges. Blocks until done.
     *
     * @param sw          the runtime; its DRAM budget must hold one tile and one partial.
     * @param source      the table, read once.
     * @param rowsPerTile rows per tile; a tile holds at most 2^31-1 bytes.
     * @return XᵀX and the column sums.
     * @throws dev.spillway.TaskFailedException if a task fails.
     */
    public static GramResult compute(final Spillway sw, final RowSource source, final int rowsPerTile)
    {
        return new OutOfCoreGram(sw, source, rowsPerTile).run();
    }

    /**
     * The reference: XᵀX and the column sums accumulated row by row on the heap, with no tiles and no Spillway.
     *
     * @param source the table, read once.
     */
    public static GramResult direct(final RowSource source)
    {
        final int columns = source.columns();
        final double[][] gram = new double[columns][columns];
        final double[] sums = new double[columns];
        final double[] row = new double[columns];
        long rows = 0;
        while (source.next(row))
        {
            rows++;
            for (int i = 0; i < columns; i++)
            {
                sums[i] += row[i];
                for (int j = 0; j < columns; j++)
                {
                    gram[i][j] += row[i] * row[j];
                }
            }
        }
        return new GramResult(rows, sums, gram);
    }

    /**
     * Runs the example: {@code [ROWS [COLUMNS [ROWS_PER_TILE [DRAM_BUDGET [SPILL_DIR]]]]]} or {@code --help}.
     *
     * @throws IllegalArgumentException naming a bad argument.
     * @throws IllegalStateException    if the out-of-core result differs from the direct one by more than
     *                                  {@link #TOLERANCE}.
     */
    public static void main(final String[] args) throws IOException
    {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h"))
        {
            System.out.print(GramArguments.USAGE);
            return;
        }
        final GramArguments a = GramArguments.parse(args);
        System.out.printf("table %,d x %d doubles = %.1f MiB in %,d tiles of %.2f MiB; DRAM budget %.1f MiB; " +
            "%d workers; spill dir %s%n", a.rows(), a.columns(), mib(a.tableBytes()), a.tiles(),
            mib(a.tileBytes()), mib(a.dramBudget()), WORKERS, a.spillDir());

        Files.createDirectories(a.spillDir());
        final GramResult result;
        final SpillwayStats stats;
        final long start = System.nanoTime();
        try (Spillway sw = Spillway.builder().workers(WORKERS).dramBudget(a.dramBudget()).storeDir(a.spillDir())
            .build())
        {
            result = compute(sw, new SyntheticRows(a.rows(), a.columns(), SEED), a.rowsPerTile());
            stats = sw.stats();
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("out of core: %.2f s%n", seconds);

        report(result);

        final long directStart = System.nanoTime();
        final GramResult reference = direct(new SyntheticRows(a.rows(), a.columns(), SEED));
        final double difference = result.maxRelativeDifference(reference);
        System.out.printf("direct streaming computation: %.2f s; max relative difference %.3g (tolerance %.0g)%n",
            (System.nanoTime() - directStart) / 1e9, difference, TOLERANCE);
        System.out.println("stats: " + stats);
        if (stats.nvmBytesWritten() == 0)
        {
            System.out.println("note: the table fit the DRAM budget, nothing spilled");
        }
        if (!(difference <= TOLERANCE))
        {
            throw new IllegalStateException("out-of-core XᵀX differs from the direct computation by " + difference +
                " relative, above " + TOLERANCE);
        }
    }

    /** Consumes the result in ordinary Java: a few column means and the most correlated pair of columns. */
    private static void report(final GramResult result)
    {
        if (result.rows() < 2)
        {
            System.out.println("fewer than 2 rows: no covariance");
            return;
        }
        final int shown = Math.min(result.columns(), 6);
        final StringBuilder means = new StringBuilder();
        for (int j = 0; j < shown; j++)
        {
            means.append(String.format(" %.4f", result.mean(j)));
        }
        System.out.println("column means:" + means + (shown < result.columns() ? " ..." : ""));

        int bestI = 0;
        int bestJ = 0;
        double best = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < result.columns(); i++)
        {
            for (int j = i + 1; j < result.columns(); j++)
            {
                final double r = Math.abs(result.correlation(i, j));
                if (r > best)
                {
                    best = r;
                    bestI = i;
                    bestJ = j;
                }
            }
        }
        if (bestJ > 0)
        {
            System.out.printf("most correlated columns: %d and %d, correlation %.4f, covariance %.4f%n", bestI, bestJ,
                result.correlation(bestI, bestJ), result.covariance(bestI, bestJ));
        }
    }

    private static double mib(final long bytes)
    {
        return bytes / (double)(1 << 20);
    }
}
