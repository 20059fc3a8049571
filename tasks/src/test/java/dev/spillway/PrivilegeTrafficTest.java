package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** READ-only data is never written back; WRITE and SCRATCH data are never read from NVMe. */
@Timeout(600)
class PrivilegeTrafficTest
{
    private static final int SIZE = 32 << 10;
    private static final int N = 12;

    @TempDir
    Path dir;

    @Test
    void readOnlyDataIsNeverWrittenBack()
    {
        try (Spillway sw = Runtimes.small(dir, 3L * SIZE, "a,s,d").cleanReserve(0).build())
        {
            final Data[] d = init(sw);
            readRound(sw, d, -1);
            final long writesOnce = sw.stats().nvmWrites();
            assertTrue(writesOnce <= N, "each object is written back at most once: " + sw.stats());
            for (int round = 0; round < 5; round++)
            {
                readRound(sw, d, round);
            }
            final SpillwayStats s = sw.stats();
            assertTrue(s.nvmReads() > 2 * N, "the rounds must really page objects in: " + s);
            assertEquals(writesOnce, s.nvmWrites(), "READ-only rounds wrote back: " + s);
        }
    }

    private static void readRound(final Spillway sw, final Data[] d, final int round)
    {
        for (int i = 0; i < N; i++)
        {
            final Data a = d[i];
            final Data b = d[(i + 5) % N];
            sw.task("read " + round + "/" + i).read(a, b).submit(ctx -> ctx.buffer(a).getLong(0));
        }
        sw.awaitAll();
    }

    @Test
    void writeAndScratchDataAreNeverRead()
    {
        try (Spillway sw = Runtimes.small(dir, 3L * SIZE, "f").cleanReserve(0).prefetchDepth(0).build())
        {
            final Data[] d = init(sw);
            final long readsAfterInit = sw.stats().nvmReads();
            assertEquals(0, readsAfterInit, "initial WRITE tasks read nothing");
            for (int round = 0; round < 4; round++)
            {
                for (int i = 0; i < N; i++)
                {
                    final Data w = d[i];
                    final Data s = d[(i + 1) % N];
                    final int r = round;
                    if (i % 2 == 0)
                    {
                        sw.task("write " + round + "/" + i).write(w).submit(ctx -> Runtimes.fill(ctx.buffer(w), r));
                    }
                    else
                    {
                        sw.task("scratch " + round + "/" + i).scratch(s).submit(ctx -> Runtimes.fill(ctx.buffer(s), r));
                    }
                }
            }
            sw.awaitAll();
            final SpillwayStats s = sw.stats();
            assertTrue(s.cleanEvictions() + s.dirtyEvictions() > N, "objects must really be evicted: " + s);
            assertEquals(0, s.nvmReads(), "WRITE/SCRATCH rounds read from NVMe: " + s);
        }
    }

    private static Data[] init(final Spillway sw)
    {
        final Data[] d = new Data[N];
        for (int i = 0; i < N; i++)
        {
            d[i] = sw.data("d" + i, SIZE);
            final Data di = d[i];
            sw.task("init " + i).write(di).submit(ctx -> Runtimes.fill(ctx.buffer(di), di.hashCode()));
        }
        sw.awaitAll();
        return d;
    }
}
