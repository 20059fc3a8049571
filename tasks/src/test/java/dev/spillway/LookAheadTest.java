package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Prefetch reads blocked tasks' inputs into free DRAM; write-behind cleans dirty objects while the IO thread idles. */
@Timeout(600)
class LookAheadTest
{
    private static final int SIZE = 16 << 10;

    @TempDir
    Path dir;

    @Test
    void blockedTasksInputsArePrefetchedIntoFreeDram() throws Exception
    {
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").prefetchDepth(8).cleanReserve(0).build())
        {
            final Data big = sw.data("evictor", 8 * SIZE);
            final Data[] d = new Data[4];
            for (int i = 0; i < d.length; i++)
            {
                d[i] = sw.data("d" + i, SIZE);
                final Data di = d[i];
                sw.task("init " + i).write(di).submit(ctx -> Runtimes.fill(ctx.buffer(di), 3));
            }
            sw.task("push everything out").write(big).submit(ctx -> { }).join();
            final long readsBefore = sw.stats().nvmReads();
            final CountDownLatch release = new CountDownLatch(1);
            final Data gate = sw.data("gate", 64);
            sw.task("slow producer").write(gate).submit(ctx -> release.await());
            for (final Data x : d)
            {
                sw.task("reader of " + x.tag()).read(gate, x).submit(ctx -> { });
            }
            // prefetches() counts reads issued, nvmReads() reads completed: wait for both.
            Await.until("four prefetches issued and read", () -> sw.stats().prefetches() >= d.length &&
                sw.stats().nvmReads() - readsBefore >= d.length, sw);
            final SpillwayStats during = sw.stats();
            assertEquals(d.length, during.prefetches(), "inputs of the four blocked readers are read early: " + during);
            release.countDown();
            sw.awaitAll();
            final SpillwayStats after = sw.stats();
            assertEquals(d.length, after.nvmReads() - readsBefore, "the readers found their data already in DRAM: " +
                after);
        }
    }

    @Test
    void writeBehindKeepsACleanReserve() throws Exception
    {
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a,s,d").cleanReserve(0.5).prefetchDepth(0).build())
        {
            sw.data("ninth", SIZE); // the data outgrows the budget: without pressure nothing is written back
            for (int i = 0; i < 8; i++)
            {
                final Data di = sw.data("d" + i, SIZE);
                sw.task("init " + i).write(di).submit(ctx -> Runtimes.fill(ctx.buffer(di), 4));
            }
            sw.awaitAll();
            // writeBehinds() counts writes issued, nvmWrites() writes completed: wait until four are done and
            // none is still in flight.
            Await.until("four background writes completed", () ->
            {
                final SpillwayStats s = sw.stats();
                return s.nvmWrites() >= 4 && s.writeBehinds() == s.nvmWrites() && s.ioQueueLength() == 0;
            }, sw);
            final SpillwayStats s = sw.stats();
            assertTrue(s.writeBehinds() >= 4, "half the budget is cleaned in the background: " + s);
            assertEquals(0, s.cleanEvictions() + s.dirtyEvictions(), "nothing needed evicting: " + s);
            assertEquals(s.writeBehinds(), s.nvmWrites());
        }
    }
}
