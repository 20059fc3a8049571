package dev.spillway.examples;

import dev.spillway.Spillway;
import dev.spillway.SpillwayStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GramMatrixTest
{
    // 21 tiles (the last one half full) of 1000 x 16 doubles, 2.6 MB in all, under a 512 KiB budget.
    private static final long ROWS = 20_500;
    private static final int COLUMNS = 16;
    private static final int ROWS_PER_TILE = 1000;
    private static final long BUDGET = 512 << 10;

    @TempDir
    Path tmp;

    @Test
    void outOfCoreResultMatchesTheDirectComputationWithinTheBudget()
    {
        final GramResult result;
        final SpillwayStats stats;
        try (Spillway sw = Spillway.builder().workers(2).dramBudget(BUDGET).storeDir(tmp).storeSizing(256, 64 << 10)
            .build())
        {
            result = GramMatrix.compute(sw, new SyntheticRows(ROWS, COLUMNS, 7), ROWS_PER_TILE);
            stats = sw.stats();
        }
        final GramResult reference = GramMatrix.direct(new SyntheticRows(ROWS, COLUMNS, 7));

        assertEquals(ROWS, result.rows());
        assertEquals(COLUMNS, result.columns());
        final double difference = result.maxRelativeDifference(reference);
        assertTrue(difference <= 1e-12, () -> "max relative difference " + difference);
        final long table = (long)ROWS * COLUMNS * Double.BYTES;
        assertTrue(table > 4 * BUDGET && stats.dramPeak() <= BUDGET, stats::toString);
        assertEquals(0, stats.tasksFailed(), stats::toString);
    }

    @Test
    void directComputationSeesADifferentTable()
    {
        final GramResult seven = GramMatrix.direct(new SyntheticRows(100, 4, 7));
        final GramResult eight = GramMatrix.direct(new SyntheticRows(100, 4, 8));
        assertTrue(seven.maxRelativeDifference(eight) > 1e-3, "the comparison must be able to fail");
    }

    @Test
    void mainRunsSmallTableEndToEnd() throws Exception
    {
        final String out = captureOut(() -> GramMatrix.main(new String[] {"5000", "8", "500", "128k",
            tmp.toString()}));
        assertTrue(out.contains("max relative difference"), out);
        assertTrue(out.contains("most correlated columns: 6 and 7"), out);
    }

    @Test
    void helpPrintsUsage() throws Exception
    {
        final String out = captureOut(() -> GramMatrix.main(new String[] {"--help"}));
        assertTrue(out.startsWith("usage: GramMatrix [ROWS"), out);
        assertTrue(out.contains("DRAM_BUDGET"), out);
    }

    @Test
    void badArgumentsAreNamed()
    {
        final IllegalArgumentException rows = assertThrows(IllegalArgumentException.class,
            () -> GramMatrix.main(new String[] {"many"}));
        assertEquals("ROWS: expected a positive integer, got 'many' (see --help)", rows.getMessage());

        final IllegalArgumentException budget = assertThrows(IllegalArgumentException.class,
            () -> GramMatrix.main(new String[] {"1000", "64", "8192", "1m"}));
        assertTrue(budget.getMessage().startsWith("DRAM_BUDGET 1048576 B cannot hold one tile and one partial"),
            budget::getMessage);
    }

    private interface Body
    {
        void run() throws Exception;
    }

    private static String captureOut(final Body body) throws Exception
    {
        final PrintStream saved = System.out;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try
        {
            body.run();
        }
        finally
        {
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
