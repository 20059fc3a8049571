package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * No writes without pressure (issue 17, item 5): while the data declared fits the budget, write-behind writes
 * nothing, even with less free DRAM than the clean reserve. One object more than the budget holds turns it on
 * ({@link #oneObjectMoreThanTheBudgetStartsWriteBehind}), the control that this test can fail.
 */
@Timeout(600)
class NoPressureNoWritesTest
{
    private static final int SIZE = 64 << 10;
    /** 16 objects; the default clean reserve is 2 of them, so 15 written leave 1 free and 15 dirty. */
    private static final long BUDGET = 16L * SIZE;
    private static final int ROUNDS = 20;

    @TempDir
    Path dir;

    @Test
    void dataThatFitsTheBudgetIsNeverWritten()
    {
        try (Spillway sw = Runtimes.small(dir, BUDGET, "p,s,d").build())
        {
            final Data[] x = declare(sw, 16);
            for (int round = 0; round < ROUNDS; round++)
            {
                writeAll(sw, x, 15, round);
            }
            // a task after the last idle spell, so the IO thread has looked ahead since every round's completions
            Runtimes.copyOut(sw, x[0]);
            final SpillwayStats s = sw.stats();
            assertEquals(0, s.writeBehinds(), "no write-behind: " + s);
            assertEquals(0, s.nvmBytesWritten(), "nothing written: " + s);
            assertEquals(0, s.nvmBytesRead(), "nothing read: " + s);
        }
    }

    @Test
    void oneObjectMoreThanTheBudgetStartsWriteBehind() throws InterruptedException
    {
        try (Spillway sw = Runtimes.small(dir, BUDGET, "p,s,d").build())
        {
            final Data[] x = declare(sw, 17);
            writeAll(sw, x, 15, 0);
            Await.until("write-behind of the 15 dirty objects with 1 of 16 free, a 17th declared",
                () -> sw.stats().writeBehinds() > 0, sw);
        }
    }

    private static Data[] declare(final Spillway sw, final int n)
    {
        final Data[] x = new Data[n];
        for (int i = 0; i < n; i++)
        {
            x[i] = sw.data("x" + i, SIZE);
        }
        return x;
    }

    private static void writeAll(final Spillway sw, final Data[] x, final int n, final int round)
    {
        for (int i = 0; i < n; i++)
        {
            final Data d = x[i];
            final long seed = round * 100L + i;
            sw.task("write " + d.tag() + " round " + round).write(d).submit(ctx ->
                Runtimes.fill(ctx.buffer(d), seed));
        }
        sw.awaitAll();
    }
}
